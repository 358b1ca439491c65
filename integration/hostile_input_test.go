package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deepRecord is a record of id whose data nests depth arrays: far past
// PHP's json depth limit of 512.
func deepRecord(id string, depth int) []byte {
	return []byte(`{"id":"` + id + `","data":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "}\n")
}

// invalidUTF8Record is a record of id holding bytes that are not UTF-8
// (PHP's json_decode refuses them).
func invalidUTF8Record(id string) []byte {
	return []byte(`{"id":"` + id + `","data":{"name":"` + "\xff\xfe\xc3" + `"}}` + "\n")
}

// Hostile content, written through the mount or planted in ROOT, is
// refused with a clear error; nothing stored is lost and the mount keeps
// serving.
func TestHostileInputRefused(t *testing.T) {
	requireFuse(t, "cp", "cmp", "touch")
	root := demoRoot(t, 6)
	m := startMount(t, root)
	scratch := t.TempDir()

	existing := storedIDs(t, root, "pages")[0]
	kept := readFile(t, storedPath(root, "pages", existing))
	fresh := newID(t)
	writes := []struct {
		what, id string
		content  []byte
	}{
		{"100k nested arrays over a stored record", existing, deepRecord(existing, 100_000)},
		{"100k nested arrays as a new record", fresh, deepRecord(fresh, 100_000)},
		{"513 levels (past PHP's depth limit of 512)", fresh, deepRecord(fresh, 512)},
		{"invalid UTF-8 over a stored record", existing, invalidUTF8Record(existing)},
		{"invalid UTF-8 as a new record", fresh, invalidUTF8Record(fresh)},
	}
	for _, w := range writes {
		src := filepath.Join(scratch, "in.jsonc")
		if err := os.WriteFile(src, w.content, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := run("", "cp", src, m.path("pages", w.id+".jsonc")); err == nil || !strings.Contains(out, "Invalid argument") {
			t.Errorf("%s: cp %v %q, want EINVAL from close", w.what, err, out)
		}
	}
	if got := readFile(t, storedPath(root, "pages", existing)); !bytes.Equal(got, kept) {
		t.Errorf("a refused write changed the stored record:\n%q", got)
	}
	if _, err := os.Stat(storedPath(root, "pages", fresh)); err == nil {
		t.Errorf("a refused new record was stored")
	}
	// A record of 511 levels, which PHP still reads, is accepted.
	src := filepath.Join(scratch, "ok.jsonc")
	if err := os.WriteFile(src, deepRecord(fresh, 510), 0o644); err != nil {
		t.Fatal(err)
	}
	runOK(t, "", "cp", src, m.path("pages", fresh+".jsonc"))
	runOK(t, "", "cmp", src, storedPath(root, "pages", fresh))

	// Planted in ROOT: shown as stored (the file is the record), refused
	// where it must be parsed, and the mount keeps serving.
	planted := map[string][]byte{}
	for _, content := range []func(string) []byte{
		func(id string) []byte { return deepRecord(id, 4_000_000) }, // 8 MB of nesting
		invalidUTF8Record,
	} {
		id := newID(t)
		planted[id] = content(id)
		path := storedPath(root, "notes", id)
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, planted[id], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for id, content := range planted {
		eventually(t, "planted record "+id+" is shown", func() bool {
			got, err := os.ReadFile(m.path("notes", id+".jsonc"))
			return err == nil && bytes.Equal(got, content)
		})
	}
	out := runFails(t, "", storhfsBin, "export", root, "notes", filepath.Join(scratch, "out.jsonl"))
	if !strings.Contains(out, "Invalid JSONC storage file") {
		t.Errorf("export of a collection with hostile records: %q, want storh's corrupt-record error", out)
	}
	runOK(t, "", "ls", m.path("notes"))
	runOK(t, "", "cat", m.path("pages", existing+".jsonc"))

	// A hostile record is repaired by writing a good one over it.
	for id := range planted {
		good := filepath.Join(scratch, "good.jsonc")
		writeFile(t, good, `{"id":"`+id+`","data":{"fixed":true}}`+"\n")
		runOK(t, "", "cp", good, m.path("notes", id+".jsonc"))
		runOK(t, "", "cmp", good, storedPath(root, "notes", id))
	}
	verify(t, root, "notes")
}

// A name longer than NAME_MAX fails with ENAMETOOLONG wherever it is
// used, not with EPERM (refused name) or ENOENT.
func TestNameTooLong(t *testing.T) {
	requireFuse(t, "touch", "mkdir", "cat")
	root := demoRoot(t, 3)
	m := startMount(t, root)
	long := strings.Repeat("x", 300)
	for _, c := range []struct{ tool, path string }{
		{"touch", m.path("pages", long)},
		{"touch", m.path("pages", long+".jsonc")},
		{"cat", m.path("pages", long+".jsonc")},
		{"cat", m.path(long)},
		{"mkdir", m.path(long)},
		{"touch", m.path("app", long)},
	} {
		if out := runFails(t, "", c.tool, c.path); !strings.Contains(out, "File name too long") {
			t.Errorf("%s %s...: %q, want ENAMETOOLONG", c.tool, c.path[:len(c.path)-len(long)], out)
		}
	}
	if n := len(storedIDs(t, root, "pages")); n != 3 {
		t.Fatalf("%d records stored, want the 3 of the demo", n)
	}
}
