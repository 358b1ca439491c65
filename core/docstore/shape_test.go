package docstore

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/internal/treetest"
)

// A record PHP would read as something other than what was written is
// refused, naming the problem, and the stored record stays byte-identical.
func TestPutRawRefusesForeignShapes(t *testing.T) {
	rec := func(members string) string { return `{"id":"` + id1 + `",` + members + `}` }
	cases := []struct{ name, content, reason string }{
		{"no data", rec(`"slug":"x"`), `unexpected top-level member "slug"`},
		{"only id", `{"id":"` + id1 + `"}`, `no "data" member`},
		{"data a number", rec(`"data":5`), `"data" is a number`},
		{"data a float", rec(`"data":1.5`), `"data" is a number`},
		{"data a string", rec(`"data":"s"`), `"data" is a string`},
		{"data null", rec(`"data":null`), `"data" is null`},
		{"data a bool", rec(`"data":true`), `"data" is a boolean`},
		{"extra member after data", rec(`"data":{"a":1},"meta":{"x":1}`), `unexpected top-level member "meta"`},
		{"extra member first", `{"meta":1,"id":"` + id1 + `","data":{}}`, `unexpected top-level member "meta"`},
		{"jsonc, data a number", "// c\n" + rec(`"data":5,`), `"data" is a number`},
		{"jsonc, extra member", rec(`/* x */ "data":{"a":1,},"slug":"x",`), `unexpected top-level member "slug"`},
		{"last duplicate data wins", rec(`"data":{"a":1},"data":5`), `"data" is a number`},
		{"no id", `{"data":{"a":1}}`, `no "id" member`},
		{"id a number", `{"id":5,"data":{}}`, `"id" is a number, not a string`},
		{"id an object", `{"id":{},"data":{}}`, `"id" is an object or a list, not a string`},
	}
	root := t.TempDir()
	s := openStore(t, root)
	if err := s.SyncIndexes([]docindex.Definition{{Field: "slug", Unique: true}}, true); err != nil {
		t.Fatal(err)
	}
	stored := rec(`"data":{"slug":"kept"}`)
	if err := s.PutRaw(id1, []byte(stored)); err != nil {
		t.Fatal(err)
	}
	before := treetest.Snapshot(t, root)
	for _, tc := range cases {
		for _, put := range []func(string, []byte) error{s.PutRaw, s.PutRawNew} {
			err := put(id1, []byte(tc.content))
			if !errors.Is(err, ErrInvalidRecord) || !strings.HasPrefix(err.Error(), id1) ||
				!strings.Contains(err.Error(), tc.reason) || !strings.Contains(err.Error(), `put fields inside "data"`) {
				t.Errorf("%s: PutRaw(%s) = %v, want ErrInvalidRecord naming the id and %q", tc.name, tc.content, err, tc.reason)
			}
		}
		// A new record is refused the same way, and not created.
		if err := s.PutRaw(id2, []byte(strings.ReplaceAll(tc.content, id1, id2))); !errors.Is(err, ErrInvalidRecord) {
			t.Errorf("%s: new record: %v, want ErrInvalidRecord", tc.name, err)
		}
	}
	treetest.AssertSame(t, "the refused puts", before, treetest.Snapshot(t, root))
	if got, err := os.ReadFile(s.RecordPath(id1)); err != nil || string(got) != stored {
		t.Fatalf("stored record now %q, %v", got, err)
	}
}

// The shapes PHP itself writes and reads back unchanged are accepted:
// objects, lists, empty data either way, any JSONC formatting.
func TestPutRawAcceptsStorhShapes(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	for _, members := range []string{
		`"data":{"a":1}`, `"data":[]`, `"data":{}`, `"data":[1,2]`, `"data":{"0":"a","1":"b"}`,
		` /* c */ "data" : {"a":[1,2,],}, // trailing
`,
	} {
		content := `{"id":"` + id1 + `",` + members + "}\n"
		if err := s.PutRaw(id1, []byte(content)); err != nil {
			t.Errorf("PutRaw(%q): %v", content, err)
			continue
		}
		if got, err := os.ReadFile(s.RecordPath(id1)); err != nil || string(got) != content {
			t.Errorf("stored %q, %v; want verbatim", got, err)
		}
	}
	if err := s.PutRaw(id2, []byte(`{"data":{"a":1},"id":"`+id2+`"}`)); err != nil {
		t.Errorf("member order data, id: %v", err)
	}
}

// Content that does not parse is refused with the line of the error.
func TestPutRawNamesTheSyntaxErrorLine(t *testing.T) {
	s := openStore(t, t.TempDir())
	content := "// a note\n{\"id\":\"" + id1 + "\",\n \"data\": {\"a\": 1,,}\n}\n"
	err := s.PutRaw(id1, []byte(content))
	if !errors.Is(err, ErrInvalidRecord) || !strings.Contains(err.Error(), "not valid JSONC (line 3): Syntax error") {
		t.Errorf("PutRaw of a syntax error on line 3 = %v", err)
	}
}
