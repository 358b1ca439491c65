package fusefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
func (dataDirBackend) Markers() []string                { return []string{"data"} }

// markerLogs and markerQueues know logs and queues by their files, as the
// engines do; only the layout is served (the real backends, in
// internal/engines, import fusefs: its own tests cannot use them).
type markerLogs struct{}

func (markerLogs) IsCollection(dir string) bool {
	return isFile(dir+"/manifest.jsonc") && isDir(dir+"/segments") || isDir(dir+"/partitions")
}
func (markerLogs) Markers() []string        { return []string{"manifest.jsonc", "segments", "partitions"} }
func (markerLogs) Open(dir string) LogStore { return markerLog{dir: dir} }

// markerLog serves a log's layout only: the other methods panic.
type markerLog struct {
	LogStore
	dir string
}

func (l markerLog) Dir() string { return l.dir }
func (l markerLog) Partition(name string) LogStore {
	return markerLog{dir: l.dir + "/partitions/" + name}
}
func (markerLog) Layout() LogLayout {
	return LogLayout{Manifest: "manifest.jsonc", Segments: "segments", Partitions: "partitions",
		IsSegment: func(name string) bool { return strings.HasSuffix(name, ".ndjson") }}
}

type markerQueues struct{}

func (markerQueues) IsCollection(dir string) bool { return isFile(dir + "/queue.log") }
func (markerQueues) Markers() []string            { return []string{"queue.log"} }
func (markerQueues) Open(dir string) QueueStore   { return markerQueue{dir: dir} }

// markerQueue serves a queue's state file only: Snapshot panics.
type markerQueue struct {
	QueueStore
	dir string
}

func (q markerQueue) Dir() string     { return q.dir }
func (markerQueue) StateFile() string { return "queue.log" }

// testCatalog is a DirCatalog of root with the marker backends.
func testCatalog(root string) *DirCatalog {
	return &DirCatalog{Root: root, Docs: dataDirBackend{}, Logs: markerLogs{}, Queues: markerQueues{}}
}

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

	c := testCatalog(root)
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
