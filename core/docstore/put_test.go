package docstore

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/internal/treetest"
	"github.com/storhfs/storhfs/shard"
)

// PutRaw must fail before writing anything when an indexed value cannot
// go into an index file (1e999 decodes to INF, which JSON cannot hold);
// before, the record was replaced and then an error was reported.
func TestPutRawUnindexableValueWritesNothing(t *testing.T) {
	cases := []struct {
		name string
		defs []docindex.Definition
	}{
		{"equality", []docindex.Definition{{Field: "score"}}},
		{"unique", []docindex.Definition{{Field: "score", Unique: true}}},
		{"range", []docindex.Definition{{Field: "score", Range: true}}},
		{"compound pair", []docindex.Definition{{Field: "kind"}, {Field: "score"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			s := openStore(t, root)
			if err := s.SyncIndexes(tc.defs, true); err != nil {
				t.Fatal(err)
			}
			if err := s.PutRaw(id1, []byte(`{"id":"`+id1+`","data":{"kind":"a","score":1}}`)); err != nil {
				t.Fatal(err)
			}
			before := treetest.Snapshot(t, root)
			err := s.PutRaw(id1, []byte(`{"id":"`+id1+`","data":{"kind":"a","score":1e999}}`))
			if !errors.Is(err, ErrInvalidRecord) || !strings.HasPrefix(err.Error(), id1) {
				t.Fatalf("PutRaw with 1e999 = %v, want an ErrInvalidRecord naming the id", err)
			}
			if errors.Is(err, ErrIndexDrift) {
				t.Errorf("refused before writing, yet reported as drift: %v", err)
			}
			treetest.AssertSame(t, "the operation", before, treetest.Snapshot(t, root))
			// Unindexed fields may hold it: nothing to encode.
			if err := s.PutRaw(id2, []byte(`{"id":"`+id2+`","data":{"other":1e999}}`)); err != nil {
				t.Errorf("1e999 in an unindexed field: %v", err)
			}
		})
	}
}

// A record file the reader would refuse (>= MaxRecordBytes) is refused on
// the write side, with a clear error.
func TestPutRawSizeLimit(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	build := func(size int) []byte {
		head := `{"id":"` + id1 + `","data":["`
		pad := size - len(head) - 3
		return []byte(head + strings.Repeat("x", pad) + `"]}`)
	}
	err := s.PutRaw(id1, build(MaxRecordBytes))
	if !errors.Is(err, ErrInvalidRecord) || !strings.Contains(err.Error(), "size limit") {
		t.Fatalf("PutRaw of exactly MaxRecordBytes = %v", err)
	}
	if _, err := s.StatRecord(id1); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("oversized record written: %v", err)
	}
	if err := s.PutRaw(id1, build(MaxRecordBytes-1)); err != nil {
		t.Fatalf("PutRaw of MaxRecordBytes-1: %v", err)
	}
	if r, err := s.Get(id1); err != nil || r == nil {
		t.Fatalf("largest accepted record does not read back: %v", err)
	}
}

func TestPutRawNew(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	content := []byte(`{"id":"` + id1 + `","data":{"v":1}}`)
	if err := s.PutRawNew(id1, content); err != nil {
		t.Fatal(err)
	}
	before := treetest.Snapshot(t, root)
	err := s.PutRawNew(id1, []byte(`{"id":"`+id1+`","data":{"v":2}}`))
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("PutRawNew over an existing record = %v, want ErrExist", err)
	}
	treetest.AssertSame(t, "the operation", before, treetest.Snapshot(t, root))
}

// RemoveEmpty runs under the write lock and keeps a collection whose lock
// file another live process may use.
func TestRemoveEmptyLockAndLiveWriters(t *testing.T) {
	root := t.TempDir()
	if err := Create(root, "notes"); err != nil {
		t.Fatal(err)
	}
	dir := root + "/notes"
	// A live writer of another process: pid 1 (init) is always alive.
	if err := os.WriteFile(dir+"/.storh/writers/1.0123abcd", nil, 0o666); err != nil {
		t.Fatal(err)
	}
	before := treetest.Snapshot(t, root)
	if err := RemoveEmpty(root, "notes"); !errors.Is(err, ErrBusy) || !errors.Is(err, syscall.EBUSY) {
		t.Fatalf("RemoveEmpty with a live foreign writer = %v, want ErrBusy", err)
	}
	after := treetest.Snapshot(t, root)
	delete(after, "notes/.storh/write.lock") // taking the lock creates it
	treetest.AssertSame(t, "the operation", before, after)

	// A dead writer's marker does not keep it.
	if err := os.Rename(dir+"/.storh/writers/1.0123abcd", dir+"/.storh/writers/2147483646.0123abcd"); err != nil {
		t.Fatal(err)
	}
	// While another instance holds the lock, RemoveEmpty waits.
	l, err := openTestLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- RemoveEmpty(root, "notes") }()
	select {
	case err := <-done:
		t.Fatalf("RemoveEmpty did not wait for the lock: %v", err)
	case <-timeAfter(100):
	}
	// A record written under that lock meanwhile keeps the collection.
	rec := shard.RecordPath(dir, id1)
	if err := os.MkdirAll(rec[:strings.LastIndexByte(rec, '/')], 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, []byte(`{"id":"`+id1+`","data":[]}`+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	l.Close()
	if err := <-done; !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("RemoveEmpty after a record appeared under the lock = %v", err)
	}
}
