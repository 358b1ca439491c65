package docindex

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// rangeID returns a valid-looking id for record n (bucket from n).
func rangeID(n int) string {
	return fmt.Sprintf("018bcfe5-%04x-7000-8000-%02x%010x", n%0x10000, n%256, n)
}

type scanned struct {
	key string
	ids string
}

func scanAll(t *testing.T, m *Manager, field, from, to string) []scanned {
	t.Helper()
	var out []scanned
	indexed, err := m.RangeScan(field, from, to, func(key string, v phpjson.Value, ids []string) error {
		out = append(out, scanned{key + "|" + ValueKey(v), strings.Join(ids, ",")})
		return nil
	})
	must(t, err)
	if !indexed {
		t.Fatalf("%s is not a range field", field)
	}
	return out
}

func TestRangeScanMainAndDelta(t *testing.T) {
	dir := t.TempDir() + "/c"
	s := newMiniStore(t, dir)
	values := []phpjson.Value{int64(10), int64(-3), "abc", nil, true, false, 7.5, int64(5), phpjson.NewList(int64(1)), int64(6), 1.0, int64(1)}
	for i, v := range values {
		must(t, s.put(rangeID(i), obj("v", v)))
	}
	must(t, s.m.Define([]Definition{{Field: "v", Range: true}}))
	must(t, s.m.Sync(true, s.source()))

	got := scanAll(t, s.m, "v", "", "")
	var keys []string
	for _, g := range got {
		keys = append(keys, g.key)
	}
	want := "b-0|b-0 b-1|b-1 n-00000000000000001d000000|f-1 n-00000000000000001d000000|i-1 n-00000000000000005d000000|i-5 " +
		"n-00000000000000006d000000|i-6 n-00000000000000007d500000|f-7d5 n-00000000000000010d000000|i-10 " +
		"n-m0000000000000003d000000|i-m3 s-616263|s-616263 z-n|n"
	if strings.Join(keys, " ") != want {
		t.Fatalf("scan order:\n got %s\nwant %s", strings.Join(keys, " "), want)
	}

	// Changes after the rebuild go to the delta: 5 -> 8 (new value, between
	// main groups), 6 removed, 10 -> "zzz" (after every main group).
	must(t, s.put(rangeID(7), obj("v", int64(8))))
	must(t, s.delete(rangeID(9)))
	must(t, s.put(rangeID(0), obj("v", "zzz")))
	got = scanAll(t, s.m, "v", RangeKey(int64(5)), RangeKey(int64(10)))
	wantScan := []scanned{
		{"n-00000000000000007d500000|f-7d5", rangeID(6)},
		{"n-00000000000000008d000000|i-8", rangeID(7)},
	}
	if fmt.Sprint(got) != fmt.Sprint(wantScan) {
		t.Errorf("window [5,10]:\n got %v\nwant %v", got, wantScan)
	}
	got = scanAll(t, s.m, "v", "s-", "")
	if fmt.Sprint(got) != fmt.Sprint([]scanned{{"s-616263|s-616263", rangeID(2)}, {"s-7a7a7a|s-7a7a7a", rangeID(0)}, {"z-n|n", rangeID(3)}}) {
		t.Errorf("strings and null: %v", got)
	}

	// A torn delta line (and a foreign one) is absent for readers.
	must(t, appendFile(s.m.paths.rangeDelta("v"), "not-json\n{\"key\":\"n-00000000000000008d000000\",\"value\":8,\"count\":1,\"ids\":[\"x"))
	got2 := scanAll(t, s.m, "v", RangeKey(int64(5)), RangeKey(int64(10)))
	if fmt.Sprint(got2) != fmt.Sprint(wantScan) {
		t.Errorf("torn delta changed the scan: %v", got2)
	}
	ids, _, err := s.m.EqualityIDs("v", int64(8))
	must(t, err)
	if strings.Join(ids, ",") != rangeID(7) {
		t.Errorf("v == 8: %v", ids)
	}
	rep, err := s.m.Verify(s.source())
	must(t, err)
	if len(rep.Errors) != 2 || rep.Errors[0] != "Malformed range index line: "+s.m.paths.rangeDelta("v") {
		t.Errorf("verify with torn delta: %q", rep.Errors)
	}
	// Equality lookups on a range field need strict identity.
	ids, _, _ = s.m.EqualityIDs("v", 1.0)
	if strings.Join(ids, ",") != rangeID(10) {
		t.Errorf("v === 1.0: %v", ids)
	}
	if indexed, _ := s.m.RangeScan("nope", "", "", nil); indexed {
		t.Error("undefined field reported as indexed")
	}
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(text)
	return err
}

// TestRangeCheckpoints builds a main file of 1000 lines (4 checkpoints),
// checks the sparse index offsets and that windows seek correctly.
func TestRangeCheckpoints(t *testing.T) {
	dir := t.TempDir() + "/c"
	s := newMiniStore(t, dir)
	for i := 0; i < 1000; i++ {
		must(t, s.put(rangeID(i), obj("n", int64(i))))
	}
	must(t, s.m.Define([]Definition{{Field: "n", Range: true}}))
	must(t, s.m.Sync(true, s.source()))

	main, err := os.ReadFile(s.m.paths.rangeMain("n"))
	must(t, err)
	cps := s.m.readCheckpoints("n")
	if len(cps) != 4 {
		t.Fatalf("checkpoints: %d, want 4", len(cps))
	}
	for i, c := range cps {
		line := main[c.offset:]
		if k, ok := rangeLineKey(line); !ok || k != c.key || k != RangeKey(int64(i*256)) {
			t.Errorf("checkpoint %d: key %q offset %d does not start line %d", i, c.key, c.offset, i*256)
		}
	}
	got := scanAll(t, s.m, "n", RangeKey(int64(600)), RangeKey(int64(603)))
	if len(got) != 4 || got[0].ids != rangeID(600) || got[3].ids != rangeID(603) {
		t.Errorf("window [600,603]: %v", got)
	}
	if entries, _ := os.ReadDir(s.m.paths.chunksDir()); len(entries) != 0 {
		t.Errorf("chunks left behind: %v", entries)
	}
}

// TestRebuildChunked forces several chunks (more than 16384 range lines)
// and checks the merged main file is sorted and complete.
func TestRebuildChunked(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 20k record files")
	}
	dir := t.TempDir() + "/c"
	s := newMiniStore(t, dir)
	const n = 20000
	var recs []struct {
		id   string
		data *phpjson.Array
	}
	for i := 0; i < n; i++ {
		recs = append(recs, struct {
			id   string
			data *phpjson.Array
		}{rangeID(i), obj("n", int64((i*7919)%n))})
	}
	s.m.pending = []Definition{{Field: "n", Range: true}}
	must(t, s.m.Sync(false, nil))
	fields, entries, err := s.m.Rebuild(func(yield func(string, *phpjson.Array) error) error {
		for _, r := range recs {
			if err := yield(r.id, r.data); err != nil {
				return err
			}
		}
		return nil
	})
	must(t, err)
	if fields != 1 || entries != n {
		t.Fatalf("rebuild: %d fields, %d entries", fields, entries)
	}
	main, err := os.ReadFile(s.m.paths.rangeMain("n"))
	must(t, err)
	lines := strings.Split(strings.TrimSuffix(string(main), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("main lines: %d", len(lines))
	}
	for i, l := range lines {
		k, _ := rangeLineKey([]byte(l))
		if k != RangeKey(int64(i)) {
			t.Fatalf("line %d has key %s", i, k)
		}
	}
	if len(s.m.readCheckpoints("n")) != (n+255)/256 {
		t.Errorf("checkpoints: %d", len(s.m.readCheckpoints("n")))
	}
}
