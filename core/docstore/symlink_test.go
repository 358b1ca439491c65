package docstore

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// Nothing under the storage root is reached through a symlink: a
// symlinked record fails to read with ELOOP, and a put into a symlinked
// bucket fails without writing outside the root.
func TestSymlinksAreNotFollowed(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	s, err := Open(root, "pages", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	gen := uuidv7.NewGenerator(nil, nil)
	recID, _ := gen.New()
	secret := `{"id":"` + recID + `","data":{"secret":1}}` + "\n"
	os.WriteFile(outside+"/secret.jsonc", []byte(secret), 0o600)
	os.MkdirAll(filepath.Dir(s.RecordPath(recID)), 0o777)
	os.Symlink(outside+"/secret.jsonc", s.RecordPath(recID))

	var se *fsutil.SymlinkError
	if rec, err := s.Get(recID); rec != nil || !errors.As(err, &se) || !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("Get of a symlinked record = %v, %v; want an ELOOP error", rec, err)
	}
	if _, err := s.StatRecord(recID); !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("StatRecord: %v, want ELOOP", err)
	}
	if f, err := s.OpenRecord(recID); !errors.Is(err, syscall.ELOOP) {
		f.Close()
		t.Fatalf("OpenRecord: %v, want ELOOP", err)
	}

	var newID string
	for {
		newID, _ = gen.New()
		if newID[24:26] != recID[24:26] {
			break
		}
	}
	os.Symlink(outside, filepath.Dir(s.RecordPath(newID)))
	if err := s.PutRaw(newID, []byte(`{"id":"`+newID+`","data":{}}`)); !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("PutRaw into a symlinked bucket: %v, want ELOOP", err)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Fatalf("outside the root now holds %v", entries)
	}
	if err := s.Delete(newID); err == nil {
		if _, serr := os.Stat(outside + "/secret.jsonc"); serr != nil {
			t.Fatal("a delete through a symlinked bucket removed a file outside the root")
		}
	}
}
