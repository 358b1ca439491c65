package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

// OpenFile creates, reads, writes and fails like os.OpenFile.
func TestOpenFileLikeOS(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/f"
	f, err := OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("abc"), 0); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 3)
	if _, err := f.ReadAt(b, 0); err != nil || string(b) != "abc" {
		t.Fatalf("ReadAt %q %v", b, err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o666&^umask() {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	_, err = OpenFile(dir+"/missing", os.O_RDONLY, 0)
	var pe *os.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != dir+"/missing" {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("O_EXCL on an existing file: %v", err)
	}
	d, err := OpenFile(dir, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	d.Close()
}

func umask() os.FileMode {
	dir, _ := os.MkdirTemp("", "umask")
	defer os.RemoveAll(dir)
	f, _ := os.Create(dir + "/x")
	f.Close()
	fi, _ := os.Stat(dir + "/x")
	return 0o666 &^ fi.Mode().Perm()
}
