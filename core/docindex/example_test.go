package docindex

import (
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

func obj(kv ...any) *phpjson.Array {
	a := phpjson.NewArray(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		a.SetString(kv[i].(string), kv[i+1])
	}
	return a
}

const (
	idA = "018bcfe5-6800-7000-8000-2d0000000001"
	idB = "018bcfe5-6801-7000-8000-9f0000000002"
)

// TestWorkedExample rebuilds a `pages` collection laid out as in docs/format/indexes.md §1
// (slug unique, kind and tag equality, n range; record A rewritten after the
// sync) and compares every index file byte for byte.
func TestWorkedExample(t *testing.T) {
	dir := t.TempDir() + "/pages"
	s := newMiniStore(t, dir)
	must(t, s.put(idA, obj("slug", "home", "kind", "page", "tag", "x", "n", int64(10))))
	must(t, s.put(idB, obj("slug", "about", "kind", "page", "tag", "y", "n", 2.5)))
	must(t, s.m.Define([]Definition{{Field: "slug", Unique: true}, {Field: "kind"}, {Field: "tag"}, {Field: "n", Range: true}}))
	must(t, s.m.Sync(true, s.source()))
	must(t, s.put(idA, obj("slug", "home", "kind", "page", "tag", "x", "n", int64(11))))

	want := map[string][]byte{
		"manifest.jsonc":                         []byte("{\n    \"fields\": [\n        {\n            \"field\": \"kind\",\n            \"unique\": false,\n            \"range\": false\n        },\n        {\n            \"field\": \"n\",\n            \"unique\": false,\n            \"range\": true\n        },\n        {\n            \"field\": \"slug\",\n            \"unique\": true,\n            \"range\": false\n        },\n        {\n            \"field\": \"tag\",\n            \"unique\": false,\n            \"range\": false\n        }\n    ]\n}\n"),
		"entries/":                               nil,
		"entries/eq/":                            nil,
		"entries/eq/6b696e64/":                   nil,
		"entries/eq/736c7567/":                   nil,
		"entries/eq/746167/":                     nil,
		"entries/compound/":                      nil,
		"entries/compound/6b696e64-746167/":      nil,
		"entries/range/":                         nil,
		"entries/range/.chunks/":                 nil,
		"entries/eq/6b696e64/s-70616765.jsonc":   []byte(`{"field":"kind","key":"s-70616765","count":2,"value":"page","ids":["` + idA + `","` + idB + `"]}` + "\n"),
		"entries/eq/736c7567/s-686f6d65.jsonc":   []byte(`{"field":"slug","key":"s-686f6d65","count":1,"value":"home","ids":["` + idA + `"]}` + "\n"),
		"entries/eq/736c7567/s-61626f7574.jsonc": []byte(`{"field":"slug","key":"s-61626f7574","count":1,"value":"about","ids":["` + idB + `"]}` + "\n"),
		"entries/eq/746167/s-78.jsonc":           []byte(`{"field":"tag","key":"s-78","count":1,"value":"x","ids":["` + idA + `"]}` + "\n"),
		"entries/eq/746167/s-79.jsonc":           []byte(`{"field":"tag","key":"s-79","count":1,"value":"y","ids":["` + idB + `"]}` + "\n"),
		"entries/compound/6b696e64-746167/c-97e2ae8da5521ecbfcc18a3480d4b272.jsonc": []byte(`{"field":"kind\ttag","key":"c-97e2ae8da5521ecbfcc18a3480d4b272","count":1,"value":null,"ids":["` + idA + `"]}` + "\n"),
		"entries/compound/6b696e64-746167/c-5bc2e51d411fc5ac92f6b83fefe04981.jsonc": []byte(`{"field":"kind\ttag","key":"c-5bc2e51d411fc5ac92f6b83fefe04981","count":1,"value":null,"ids":["` + idB + `"]}` + "\n"),
		"entries/range/6e.jsonl": []byte(`{"key":"n-00000000000000002d500000","value":2.5,"count":1,"ids":["` + idB + `"],"remove":[]}` + "\n" +
			`{"key":"n-00000000000000010d000000","value":10,"count":1,"ids":["` + idA + `"],"remove":[]}` + "\n"),
		"entries/range/6e.idx.jsonc": []byte(`{"stride":256,"checkpoints":[{"key":"n-00000000000000002d500000","offset":0}]}` + "\n"),
		"entries/range/6e.delta.jsonl": []byte(`{"key":"n-00000000000000010d000000","value":10,"count":-1,"ids":[],"remove":["` + idA + `"]}` + "\n" +
			`{"key":"n-00000000000000011d000000","value":11,"count":1,"ids":["` + idA + `"],"remove":[]}` + "\n"),
	}
	compareTrees(t, treeFiles(t, dir+"/.storh/indexes"), want)

	rep, err := s.m.Verify(s.source())
	must(t, err)
	if !rep.OK() {
		t.Errorf("verify: %q", rep.Errors)
	}
	ids, indexed, err := s.m.EqualityIDs("n", int64(11))
	must(t, err)
	if !indexed || len(ids) != 1 || ids[0] != idA {
		t.Errorf("n == 11: %v %v", ids, indexed)
	}
	ids, _, err = s.m.EqualityIDs("n", int64(10))
	must(t, err)
	if len(ids) != 0 {
		t.Errorf("n == 10 after the rewrite: %v", ids)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
