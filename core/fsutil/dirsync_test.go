package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// A failed directory fsync after the rename is reported (ErrDirSync, with
// its cause), with the new content in place and no temp file left.
func TestWriteFileDurableReportsDirSyncFailure(t *testing.T) {
	coll := t.TempDir()
	w := NewWriter(coll)
	w.SyncDir = func(int) error { return unix.EIO }
	final := filepath.Join(coll, "data", "aa", "r.jsonc")
	err := w.WriteFileDurable(final, []byte("new"))
	if !errors.Is(err, ErrDirSync) || !errors.Is(err, unix.EIO) {
		t.Fatalf("WriteFileDurable = %v, want ErrDirSync wrapping EIO", err)
	}
	if got, err := os.ReadFile(final); err != nil || string(got) != "new" {
		t.Fatalf("record after the failed directory fsync: %q, %v", got, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(final))
	if len(entries) != 1 {
		t.Errorf("bucket holds %d entries, want the record alone", len(entries))
	}
	w.SyncDir = nil
	if err := w.WriteFileDurable(final, []byte("again")); err != nil {
		t.Errorf("with a working fsync: %v", err)
	}
}
