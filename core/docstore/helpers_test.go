package docstore

import (
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// obj builds a PHP array from alternating names and values.
func obj(kv ...any) *phpjson.Array {
	a := phpjson.NewArray(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		if n, ok := v.(int); ok {
			v = int64(n)
		}
		a.SetString(kv[i].(string), v)
	}
	return a
}

func mustJSON(t testing.TB, v phpjson.Value) string {
	t.Helper()
	b, err := phpjson.Encode(v)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return string(b)
}

func openStore(t testing.TB, root string) *Store {
	t.Helper()
	s, err := Open(root, "pages", Options{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

const (
	id1 = "018fbbf0-da38-75fc-b043-8814e84c4fdc"
	id2 = "018fbbf0-de20-7d70-a07e-aee1d00381d3"
	id3 = "018fbbf0-e208-7f76-aeea-f2e276baad04"
)

// sequentialIDs returns n UUIDv7 ids one millisecond apart, in id order.
func sequentialIDs(t testing.TB, n int) []string {
	t.Helper()
	gen := uuidv7.NewGenerator(nil, nil)
	ids := make([]string, n)
	for i := range ids {
		id, err := gen.NewAt(1700000000000 + int64(i))
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	return ids
}
