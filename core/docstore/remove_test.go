package docstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/internal/treetest"
)

// RemoveEmpty decides before removing anything: a collection holding
// anything but an empty collection's layout is left exactly as it was, and
// the error names what keeps it. (It used to delete .storh/ and data/ and
// only then fail on a foreign file beside them.)
func TestRemoveEmptyChecksBeforeRemoving(t *testing.T) {
	cases := []struct {
		name  string
		add   func(t *testing.T, dir string, s *Store)
		holds string
	}{
		{"foreign file beside data", func(t *testing.T, dir string, s *Store) {
			writeTestFile(t, dir+"/README", "about this collection")
		}, "holds README"},
		{"foreign directory", func(t *testing.T, dir string, s *Store) {
			if err := os.Mkdir(dir+"/attachments", 0o777); err != nil {
				t.Fatal(err)
			}
		}, "holds attachments"},
		{"file in data", func(t *testing.T, dir string, s *Store) {
			writeTestFile(t, dir+"/data/notes.txt", "x")
		}, "holds data/notes.txt"},
		{"temp file in a bucket", func(t *testing.T, dir string, s *Store) {
			writeTestFile(t, dir+"/data/88/.1.0123abcd.1.tmp", "half")
		}, "holds data/88/.1.0123abcd.1.tmp"},
		{"quarantined record", func(t *testing.T, dir string, s *Store) {
			writeTestFile(t, dir+"/.storh/corrupt/"+id1+".jsonc", "{ broken")
		}, "quarantined"},
		{"records", func(t *testing.T, dir string, s *Store) {
			if err := s.PutRaw(id1, []byte(`{"id":"`+id1+`","data":{}}`)); err != nil {
				t.Fatal(err)
			}
		}, "holds records"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := Create(root, "notes"); err != nil {
				t.Fatal(err)
			}
			s, err := Open(root, "notes", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SyncIndexes([]docindex.Definition{{Field: "slug", Unique: true}}, true); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(root+"/notes/data/2d", 0o777); err != nil {
				t.Fatal(err) // an empty bucket, removable, comes first
			}
			tc.add(t, root+"/notes", s)
			s.Close()
			before := treetest.Snapshot(t, root)
			err = RemoveEmpty(root, "notes")
			if !errors.Is(err, ErrNotEmpty) || !errors.Is(err, syscall.ENOTEMPTY) || !strings.Contains(err.Error(), tc.holds) {
				t.Fatalf("RemoveEmpty = %v, want ErrNotEmpty naming %q", err, tc.holds)
			}
			treetest.AssertSame(t, "the refused removal", before, treetest.Snapshot(t, root))
		})
	}
	t.Run("empty collection with indexes", func(t *testing.T) {
		root := t.TempDir()
		s := openStore(t, root) // collection "pages"
		if err := s.SyncIndexes([]docindex.Definition{{Field: "slug"}}, true); err != nil {
			t.Fatal(err)
		}
		if err := s.PutRaw(id1, []byte(`{"id":"`+id1+`","data":{"slug":"a"}}`)); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(id1); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if err := RemoveEmpty(root, "pages"); err != nil {
			t.Fatalf("RemoveEmpty of an emptied collection: %v", err)
		}
		if _, err := os.Stat(root + "/pages"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("collection still there: %v", err)
		}
	})
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

// A removal that fails for another reason than content is reported as
// that failure, not as ErrNotEmpty: rmdir of an empty bucket that is a
// mount point fails with EBUSY. (It used to say "not empty".)
func TestRemoveEmptyKeepsOtherRemovalErrors(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a bind mount")
	}
	root := t.TempDir()
	if err := Create(root, "notes"); err != nil {
		t.Fatal(err)
	}
	bucket := CollectionDir(root, "notes") + "/data/ab"
	if err := os.MkdirAll(bucket, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(t.TempDir(), bucket, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(bucket, syscall.MNT_DETACH) })
	err := RemoveEmpty(root, "notes")
	if !errors.Is(err, syscall.EBUSY) || errors.Is(err, ErrNotEmpty) {
		t.Fatalf("RemoveEmpty with a busy bucket = %v, want EBUSY and not ErrNotEmpty", err)
	}
}

// A mutation whose flock fails to release reports it: the lock may still
// be held and block every other writer. (The error used to be dropped.)
func TestWriteLockReportsUnlockFailure(t *testing.T) {
	s := openStore(t, t.TempDir())
	err := s.withWriteLock(func() error {
		return s.lock.Unlock() // the deferred release then finds it unlocked
	})
	if err == nil || !strings.Contains(err.Error(), "not locked") {
		t.Fatalf("withWriteLock with a failing unlock = %v, want the unlock error", err)
	}
}
