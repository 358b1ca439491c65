package docstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/storhfs/storhfs/internal/corpus"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/internal/treetest"
)

const fuzzID = "018fa7fc-35b8-7d0a-acf2-280fa65136b3"

// FuzzPutRaw: arbitrary bytes as the record file of a fixed id are either
// rejected with the tree unchanged, or stored verbatim, after which Get
// returns data whose canonical encoding decodes back to the same encoding.
func FuzzPutRaw(f *testing.F) {
	seeds := []string{
		`{"id":"` + fuzzID + `","data":{"a":1}}`,
		"  // c\n{\"id\": \"" + fuzzID + "\", /* n */ \"data\": {\"i\": [1,2,],},}",
		`{ "data" : {"b":"\u00e9", "x":1e2}, "id":"` + fuzzID + `" }`,
		`{"id":"` + fuzzID + `","data":"oops"}`,
		`{"id":"` + fuzzID + `"}`,
		"{ broken", "", "[1]", "{}", "\xef\xbb\xbf{}",
		`{"id":"` + fuzzID + `","data":{"0":"a","1":"b","x":{}}}`,
		`{"id":"` + fuzzID + `","data":[-0.0,1E400]}`,
	}
	// Seeds from the corpus's hand-written JSONC record files.
	if dir, err := filepath.Glob(filepath.Join(corpus.Require(f), "doc/jsonc-read/before/notes/data/*/*.jsonc")); err == nil {
		for _, p := range dir {
			if b, err := os.ReadFile(p); err == nil {
				seeds = append(seeds, string(b))
			}
		}
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		root := t.TempDir()
		s, err := Open(root, "c", Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		before := treetest.Snapshot(t, root)
		if err := s.PutRaw(fuzzID, content); err != nil {
			treetest.AssertSame(t, "the operation", before, treetest.Snapshot(t, root))
			return
		}
		stored, err := os.ReadFile(s.RecordPath(fuzzID))
		if err != nil || string(stored) != string(content) {
			t.Fatalf("stored %q, %v", stored, err)
		}
		rec, err := s.Get(fuzzID)
		if err != nil || rec == nil {
			t.Fatalf("accepted but get fails: %v", err)
		}
		enc, err := phpjson.Encode(rec.Data)
		if err != nil {
			// PHP reads values it cannot write (INF from 1e400): acceptable.
			return
		}
		again, err := phpjson.Decode(enc)
		if err != nil {
			t.Fatalf("re-decode %q: %v", enc, err)
		}
		enc2, err := phpjson.Encode(again)
		if err != nil || string(enc2) != string(enc) {
			t.Fatalf("re-encode unstable: %q -> %q (%v)", enc, enc2, err)
		}
	})
}
