package docindex

import (
	"os"
	"slices"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

var entryReadSeeds = []string{
	`{"field":"kind","key":"s-70616765","count":2,"value":"page","ids":["` + idA + `","` + idB + `"]}` + "\n",
	`{"field":"a\tb","key":"c-97e2","count":1,"value":null,"ids":["x"]}` + "\n",
	`{"field":"n","key":"i-1","count":0,"value":1,"ids":[]}` + "\n",
	`{"field":"f","key":"f-1d5","count":1,"value":1.5,"ids":[""]}` + "\n",
	`{"field":"f","key":"b-1","count":1,"value":true,"ids":["a"]}` + "\n",
	`{"field":"f","key":"k","count":1,"value":"x,\"ids\":[\"y\"]}","ids":["a"]}` + "\n",
	`{"field":"f","key":"k","count":1,"value":{"ids":["n"]},"ids":["a"]}` + "\n",
	`{"field":"f","value":{"a":1,"ids":["a"]}}` + "\n",
	`{"field":"f","value":[1,"ids":["a"]]}` + "\n",
	`{"ids":[1,2],"field":"f","key":"k","ids":["a","b"]}` + "\n",
	`{"field":"f",,"ids":["a"]}` + "\n",
	`{,"ids":["a"]}` + "\n",
	`{"field":"f" /* c */,"ids":["a"]}` + "\n",
	`{"field":"f" /*,"ids":["a"]}` + "\n",
	`{"field":"f" //,"ids":["a"]}` + "\n",
	`{"field":"f","ids":["a" , "b"]}` + "\n",
	`{"field":"f","ids":["a",,"b"]}` + "\n",
	`{"field":"f","ids":["a\"b"]}` + "\n",
	`{"field":"f","ids":["a\\b"]}` + "\n",
	`{"field":"f","ids":["é"]}` + "\n",
	`{"field":"f","ids":["\xff"]}` + "\n",
	`{"field":"f","ids":["a","b"]}`,
	`{"field":"f","ids":["a","b"]}` + "\n\n",
	`{"field":"f","ids":["a"],"x":1]}` + "\n",
	"\ufeff" + `{"field":"f","ids":["a"]}` + "\n",
	`{"field":"f","ids":["a` + "\n",
	`,"ids":["a"]}` + "\n",
	`[1,"ids":["a"]}` + "\n",
	`{"field":"f","count":1e2,"ids":["a"]}` + "\n",
	`{"field":"f","key":"k","ids":["a"]` + "\n",
}

// checkEntryRead: whenever the canonical split is taken, the full decode
// must succeed with the same ids and the same members.
func checkEntryRead(t *testing.T, content string) {
	head, ids, ok := splitCanonicalIDs([]byte(content))
	if !ok {
		return
	}
	fast, err := phpjson.DecodeJSONCObject(head)
	if err != nil {
		return // readEntry falls back to the full decode
	}
	full, err := decodeJSONCObject([]byte(content), "p")
	if err != nil {
		t.Fatalf("%q: split accepted, full decode fails: %v", content, err)
	}
	if want := stringIDs(full, "ids"); !slices.Equal(ids, want) && len(ids)+len(want) > 0 {
		t.Errorf("%q: ids %q, full decode %q", content, ids, want)
	}
	for _, k := range []string{"field", "key", "count", "value"} {
		fv, fok := fast.Lookup(k)
		wv, wok := full.Lookup(k)
		if fok != wok || !phpjson.Identical(fv, wv) {
			t.Errorf("%q: member %s = %v, full decode %v", content, k, fv, wv)
		}
	}
}

func TestSplitCanonicalIDs(t *testing.T) {
	for _, s := range entryReadSeeds {
		checkEntryRead(t, s)
	}
	// The canonical files this package writes take the fast path.
	for _, e := range []entry{
		{field: "kind", key: "s-70616765", value: "page", ids: []string{idA, idB}},
		{field: "a\tb", key: "c-00", value: nil, ids: []string{idA}},
		{field: "f", key: "f-1d5", value: 1.5, ids: []string{"plain id"}},
	} {
		content, err := e.encode()
		must(t, err)
		if _, ids, ok := splitCanonicalIDs(content); !ok || !slices.Equal(ids, e.ids) {
			t.Errorf("%s: fast path not taken (ok %v, ids %q)", content, ok, ids)
		}
	}
}

func TestReadEntryFallsBack(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		content string
		ids     []string
		wantErr string
	}{
		{`{"field":"f","key":"k","ids":["a\u0062","c"]}` + "\n", []string{"ab", "c"}, ""},
		{`{"field":"f", "ids": [ "a" ] }`, []string{"a"}, ""},
		{`{"field":"f","ids":["a",1,"b"]}` + "\n", []string{"a", "b"}, ""},
		{`{"field":"f",,"ids":["a"]}` + "\n", nil, "Invalid JSONC storage file: " + dir + "/e.jsonc"},
		{`{"field":"f","ids":["a"` + "\n", nil, "JSONC document must decode to an object."},
	}
	for _, tc := range tests {
		must(t, os.WriteFile(dir+"/e.jsonc", []byte(tc.content), 0o666))
		_, ids, err := readEntry(dir + "/e.jsonc")
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%q: err = %v, want %q", tc.content, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(ids, tc.ids) {
			t.Errorf("%q: ids %q, err %v; want %q", tc.content, ids, err, tc.ids)
		}
	}
	if obj, ids, err := readEntry(dir + "/missing.jsonc"); obj != nil || ids != nil || err != nil {
		t.Errorf("missing file: %v %v %v", obj, ids, err)
	}
}

func FuzzSplitCanonicalIDs(f *testing.F) {
	for _, s := range entryReadSeeds {
		f.Add(s)
	}
	f.Fuzz(checkEntryRead)
}
