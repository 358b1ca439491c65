package docstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"storhfs/core/docindex"
	"storhfs/internal/treetest"
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
