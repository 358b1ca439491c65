package fusefs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// spillFile holds a large unsaved file's content outside the Go heap: an
// unlinked temporary file on the storage root's file system, so its pages
// are the kernel's page cache (written back to disk under memory pressure),
// never the mount's resident memory, and a tmpfs /tmp cannot turn it back
// into RAM. It has no name, so nothing is left behind by a crash.
// Invariant: size is the content's length; bytes past a write's end that
// were never written read as zero (the file is sparse).
type spillFile struct {
	f    *os.File
	size int64
}

// createSpillFile makes an unnamed file in dir: O_TMPFILE where the file
// system supports it, else a dot-named file unlinked at once.
func createSpillFile(dir string) (*spillFile, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return &spillFile{f: os.NewFile(uintptr(fd), dir+"/(spill)")}, nil
	}
	f, err := os.CreateTemp(dir, ".storhfs-spill-")
	if err != nil {
		return nil, fmt.Errorf("spill file in %s: %w", dir, err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("unlink spill file %s: %w", f.Name(), err)
	}
	return &spillFile{f: f}, nil
}

func (s *spillFile) writeAt(p []byte, off int64) syscall.Errno {
	if _, err := s.f.WriteAt(p, off); err != nil {
		// A short write may have extended the file: keep size the
		// content's length, cutting a partly written tail.
		s.f.Truncate(s.size)
		return errnoOf(err, syscall.EIO)
	}
	s.size = max(s.size, off+int64(len(p)))
	return 0
}

func (s *spillFile) truncate(size int64) syscall.Errno {
	if err := s.f.Truncate(size); err != nil {
		return errnoOf(err, syscall.EIO)
	}
	s.size = size
	return 0
}

// readAt fills dest from off and returns the filled part (empty past EOF).
func (s *spillFile) readAt(dest []byte, off int64) ([]byte, syscall.Errno) {
	if off < 0 || off >= s.size {
		return dest[:0], 0
	}
	dest = dest[:min(int64(len(dest)), s.size-off)]
	n, err := s.f.ReadAt(dest, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, errnoOf(err, syscall.EIO)
	}
	return dest[:n], 0
}

// readAll returns the whole content in a new slice of exactly size bytes.
func (s *spillFile) readAll() ([]byte, syscall.Errno) {
	content := make([]byte, s.size)
	if _, err := s.f.ReadAt(content, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, errnoOf(err, syscall.EIO)
	}
	return content, 0
}

func (s *spillFile) close() { s.f.Close() }
