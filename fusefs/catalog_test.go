package fusefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

type dataDirBackend struct{}

func (dataDirBackend) IsCollection(dir string) bool { return isDir(filepath.Join(dir, "data")) }
func (dataDirBackend) Open(root, c string, readOnly bool) (RecordStore, error) {
	return nil, errors.New("unused")
}
func (dataDirBackend) Create(root, c string) error      { return nil }
func (dataDirBackend) RemoveEmpty(root, c string) error { return nil }

func TestDirCatalog(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	touch := func(p string) {
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("pages/data")
	mk("app/users/data")
	mk("deep/a/b/c/data")
	mk("events/segments")
	touch("events/manifest.jsonc")
	mk("jobs")
	touch("jobs/queue.log")
	mk("empty")
	mk(".hidden/data")
	touch("loose.txt")

	c := &DirCatalog{Root: root, Docs: dataDirBackend{}}
	kinds := map[string]Kind{
		"pages": KindDocStore, "app": KindNamespace, "app/users": KindDocStore,
		"deep": KindNamespace, "events": KindLog, "jobs": KindQueue, "empty": KindNone,
		".hidden": KindNone, "loose.txt": KindNone, "missing": KindNone, "app/.x": KindNone,
	}
	for rel, want := range kinds {
		if got := c.Kind(rel); got != want {
			t.Errorf("Kind(%q) = %v, want %v", rel, got, want)
		}
	}
	list, err := c.List("")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name)
	}
	if got := len(names); got != 5 || names[0] != "app" || names[4] != "pages" {
		t.Errorf("List(root) = %v, want [app deep events jobs pages]", names)
	}
}

func TestErrnoOf(t *testing.T) {
	cases := []struct {
		err      error
		fallback syscall.Errno
		want     syscall.Errno
	}{
		{nil, syscall.EIO, 0},
		{fs.ErrNotExist, syscall.EIO, syscall.ENOENT},
		{&os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, syscall.EINVAL, syscall.ENOSPC},
		{errors.New("Unique index violation on field: slug"), syscall.EINVAL, syscall.EINVAL},
		{fs.ErrPermission, syscall.EIO, syscall.EACCES},
	}
	for _, c := range cases {
		if got := errnoOf(c.err, c.fallback); got != c.want {
			t.Errorf("errnoOf(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
