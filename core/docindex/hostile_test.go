package docindex

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o777))
	must(t, os.WriteFile(path, []byte(content), 0o666))
}

func TestManifestReading(t *testing.T) {
	cases := []struct {
		name, content string
		want          string // definitions as field:unique:range, or "error: <text>"
	}{
		{"absent", "", ""},
		{"empty fields", "{\n    \"fields\": []\n}\n", ""},
		{"fields not array", `{"fields":"x"}`, ""},
		{"tolerant", `{"fields":[{"field":123},"ignored",{"field":"b","unique":1,"range":"true"},{"field":"a","range":true},{"field":"b","unique":true}]}`, "a:false:true b:true:false"},
		{"jsonc", "// c\n{\"fields\":[{\"field\":\"x\",},],}", "x:false:false"},
		{"broken", "{ broken", "error: JSONC document must decode to an object."},
		{"truncated", `{"fields":[{"field":"a"`, "error: JSONC document must decode to an object."},
		{"bad json inside braces", `{"fields":[}`, "error: Invalid JSONC storage file: <M>"},
		{"list", `[1]`, "error: JSONC document must decode to an object."},
		{"bom", "\xef\xbb\xbf{\"fields\":[]}", "error: JSONC document must decode to an object."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			m, _ := Open(dir, nil)
			if c.name != "absent" {
				writeFile(t, m.paths.manifest(), c.content)
			}
			err := m.Reload()
			var got string
			if err != nil {
				got = "error: " + strings.ReplaceAll(err.Error(), m.paths.manifest(), "<M>")
				if !m.Active() {
					t.Error("a broken manifest must keep indexes active (writes must fail)")
				}
				if uerr := m.UpdateRecord(idA, nil, obj("a", int64(1))); uerr == nil {
					t.Error("UpdateRecord with a broken manifest succeeded")
				}
				if _, _, lerr := m.EqualityIDs("a", int64(1)); lerr == nil {
					t.Error("EqualityIDs with a broken manifest succeeded")
				}
			} else {
				var parts []string
				for _, d := range m.Definitions() {
					parts = append(parts, d.Field+":"+boolText(d.Unique)+":"+boolText(d.Range))
				}
				got = strings.Join(parts, " ")
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestDefineRejectsEmptyField(t *testing.T) {
	m, _ := Open(t.TempDir(), nil)
	for _, name := range []string{"", "  ", "\t\n\x00\x0b"} {
		if err := m.Define([]Definition{{Field: name}}); err == nil || err.Error() != "Index field cannot be empty." {
			t.Errorf("Define(%q) = %v", name, err)
		}
	}
}

func TestSyncWithoutRebuildAndEmpty(t *testing.T) {
	dir := t.TempDir() + "/c"
	s := newMiniStore(t, dir)
	must(t, s.put(idA, obj("kind", "page")))
	must(t, s.m.Sync(true, s.source())) // nothing defined: manifest only
	b, err := os.ReadFile(s.m.paths.manifest())
	must(t, err)
	if string(b) != "{\n    \"fields\": []\n}\n" {
		t.Errorf("empty manifest: %q", b)
	}
	if _, err := os.Stat(s.m.paths.entries()); !os.IsNotExist(err) {
		t.Error("an unchanged sync must not rebuild")
	}
	must(t, s.m.Define([]Definition{{Field: "kind"}}))
	must(t, s.m.Sync(false, s.source()))
	if ids, indexed, _ := s.m.EqualityIDs("kind", "page"); !indexed || len(ids) != 0 {
		t.Errorf("sync(false) must leave the new index empty: %v %v", ids, indexed)
	}
	rep, err := s.m.Verify(s.source())
	must(t, err)
	if len(rep.Errors) != 1 || rep.Errors[0] != "Index mismatch (equality): kind s-70616765" {
		t.Errorf("verify after sync(false): %q", rep.Errors)
	}
	fields, entries, err := s.m.Rebuild(s.source())
	must(t, err)
	if fields != 1 || entries != 1 {
		t.Errorf("rebuild: %d %d", fields, entries)
	}
	if ids, _, _ := s.m.EqualityIDs("kind", "page"); len(ids) != 1 {
		t.Errorf("after rebuild: %v", ids)
	}
	// With zero records a rebuild leaves an empty entries/ (no range dir).
	must(t, s.delete(idA))
	_, _, err = s.m.Rebuild(s.source())
	must(t, err)
	if list, err := os.ReadDir(s.m.paths.entries()); err != nil || len(list) != 0 {
		t.Errorf("entries after empty rebuild: %v %v", list, err)
	}
}

func TestRebuildSourceErrorEmptiesEntries(t *testing.T) {
	dir := t.TempDir() + "/c"
	s := newMiniStore(t, dir)
	must(t, s.put(idA, obj("kind", "page")))
	must(t, s.m.Define([]Definition{{Field: "kind"}}))
	must(t, s.m.Sync(true, s.source()))
	boom := errors.New("JSONC document must decode to an object.")
	_, _, err := s.m.Rebuild(func(yield func(string, *phpjson.Array) error) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("rebuild error: %v", err)
	}
	if list, _ := os.ReadDir(s.m.paths.entries()); len(list) != 0 {
		t.Errorf("entries/ must be empty after a failed rebuild, has %d", len(list))
	}
}

func TestCorruptEntryFiles(t *testing.T) {
	dir := t.TempDir() + "/c"
	s := newMiniStore(t, dir)
	must(t, s.m.Define([]Definition{{Field: "kind"}, {Field: "slug", Unique: true}}))
	must(t, s.m.Sync(true, s.source()))
	must(t, s.put(idA, obj("kind", "page", "slug", "a")))

	kindPath := s.m.paths.eqFile("kind", "s-70616765")
	writeFile(t, kindPath, "garbage")
	// Readers: no key literal, no ids.
	if ids, _, err := s.m.EqualityIDs("kind", "page"); err != nil || len(ids) != 0 {
		t.Errorf("garbage entry: %v %v", ids, err)
	}
	// Writers read the file fully, as PHP does, and fail.
	if err := s.put(idB, obj("kind", "page", "slug", "b")); err == nil || !strings.Contains(err.Error(), "JSONC") {
		t.Errorf("put over a garbage entry file: %v", err)
	}
	// Raw scan: key literal without an ids list is malformed.
	slugPath := s.m.paths.eqFile("slug", "s-61")
	writeFile(t, slugPath, `{"field":"slug","key":"s-61","count":1}`)
	err := s.m.CheckUnique(idB, obj("slug", "a"))
	if err == nil || err.Error() != "Malformed equality index: "+slugPath {
		t.Errorf("unique check on malformed entry: %v", err)
	}
	writeFile(t, slugPath, `{"field":"slug","key":"s-61","count":1,"value":"a","ids":[x]}`)
	if _, _, err := s.m.EqualityIDs("slug", "a"); err == nil {
		t.Error("unquoted ids must be malformed")
	}
	rep, err := s.m.Verify(s.source())
	must(t, err)
	if len(rep.Errors) == 0 || !strings.HasPrefix(rep.Errors[0], "Unreadable index file: "+kindPath+" (") {
		t.Errorf("verify: %q", rep.Errors)
	}
}

func TestUniqueChecks(t *testing.T) {
	dir := t.TempDir() + "/c"
	s := newMiniStore(t, dir)
	must(t, s.m.Define([]Definition{{Field: "slug", Unique: true}, {Field: "code", Unique: true, Range: true}}))
	must(t, s.m.Sync(true, s.source()))
	must(t, s.put(idA, obj("slug", nil, "code", int64(1))))
	cases := []struct {
		data *phpjson.Array
		err  string
	}{
		{obj("slug", nil), "Unique index violation on field: slug"}, // quirk unique-null
		{obj("slug", 1.0), ""},
		{obj("slug", "1"), ""},
		{obj("code", int64(1)), "Unique index violation on field: code"},
		{obj("code", 1.0), ""}, // range lookup is strict
		{obj("code", true), ""},
		{obj("slug", phpjson.NewList(int64(1))), ""},
		{obj("other", nil), ""},
	}
	for _, c := range cases {
		err := s.m.CheckUnique(idB, c.data)
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, ErrUniqueViolation) {
				t.Errorf("%v is not ErrUniqueViolation", err)
			}
		}
		if got != c.err {
			t.Errorf("CheckUnique(%v) = %q, want %q", c.data.Keys(), got, c.err)
		}
	}
	if err := s.m.CheckUnique(idA, obj("slug", nil, "code", int64(1))); err != nil {
		t.Errorf("re-put of the same id: %v", err)
	}
}

// TestHostileFieldNames: names with '/', NUL and non-ASCII are hex-encoded
// into single path components; names too long for a file name fail with an
// error, never a panic.
func TestHostileFieldNames(t *testing.T) {
	dir := t.TempDir() + "/c"
	s := newMiniStore(t, dir)
	names := []string{"a/b", "../x", "nul\x00byte", "é"}
	var defs []Definition
	for _, n := range names {
		defs = append(defs, Definition{Field: n})
	}
	must(t, s.m.Define(defs))
	must(t, s.m.Sync(true, s.source()))
	data := obj()
	for _, n := range names {
		data.SetString(n, "v")
	}
	must(t, s.put(idA, data))
	for _, n := range names {
		ids, _, err := s.m.EqualityIDs(n, "v")
		must(t, err)
		if len(ids) != 1 {
			t.Errorf("field %q: %v", n, ids)
		}
		if _, err := os.Stat(s.m.paths.eqFile(n, "s-76")); err != nil {
			t.Errorf("field %q: %v", n, err)
		}
	}
	long := strings.Repeat("f", 200)
	must(t, s.m.Define([]Definition{{Field: long}, {Field: long + "r", Range: true}}))
	if err := s.m.Sync(true, s.source()); err != nil {
		t.Fatalf("sync with no values of the long fields should succeed: %v", err)
	}
	err := s.put(idB, obj(long, "v"))
	if err == nil {
		t.Fatal("a 400-character directory name must fail")
	}
	err = s.put(idB, obj(long+"r", int64(1)))
	if err == nil || !strings.HasPrefix(err.Error(), "Could not write range index: ") {
		t.Errorf("long range field: %v", err)
	}
}
