package treetest

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder captures what AssertSame reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, f) }

func TestSnapshotSeesEveryKindOfChange(t *testing.T) {
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("a/b.txt", "one")
	write("c.txt", "two")
	before := Snapshot(t, root)

	same := &recorder{TB: t}
	AssertSame(same, "nothing", before, Snapshot(t, root))
	if len(same.errors) != 0 {
		t.Fatalf("unchanged tree reported %d changes", len(same.errors))
	}

	write("a/b.txt", "ONE")                                         // changed content
	if err := os.Remove(filepath.Join(root, "c.txt")); err != nil { // removed
		t.Fatal(err)
	}
	write("d/e.txt", "new")                                           // created file and directory
	if err := os.Chmod(filepath.Join(root, "a"), 0o700); err != nil { // mode
		t.Fatal(err)
	}
	got := &recorder{TB: t}
	AssertSame(got, "op", before, Snapshot(t, root))
	if len(got.errors) != 5 {
		t.Fatalf("reported %d changes, want 5 (content, mode, removed, 2 created)", len(got.errors))
	}
}

func TestSnapshotOfMissingRootIsEmpty(t *testing.T) {
	if s := Snapshot(t, filepath.Join(t.TempDir(), "missing")); len(s) != 0 {
		t.Fatalf("snapshot of a missing root = %v", s)
	}
}
