package docindex

import (
	"errors"
	"io"
	"io/fs"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/fsutil"
)

// rawFile is a read-only file descriptor used without os.File: opening a
// regular file through os.Open also costs a failed epoll registration and
// fcntl calls, which dominated the small reads of index lookups and counts.
type rawFile struct {
	fd   int
	path string // for errors
}

func openRaw(path string) (rawFile, error) {
	for {
		fd, err := fsutil.OpenAt(unix.AT_FDCWD, path, unix.O_RDONLY, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return rawFile{fd: -1}, fsutil.PathError("open", path, err)
		}
		return rawFile{fd: fd, path: path}, nil
	}
}

// ReadAt is os.File.ReadAt: it reads len(b) bytes at off unless the file
// ends first, which returns io.EOF with the bytes read.
func (f rawFile) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Pread(f.fd, b[n:], off+int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "read", Path: f.path, Err: err}
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

// regularSize returns the size of a regular file, or an error for any
// other kind of file.
func (f rawFile) regularSize() (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return 0, &fs.PathError{Op: "stat", Path: f.path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0, errors.New("not a regular file")
	}
	return st.Size, nil
}

func (f rawFile) Close() error { return unix.Close(f.fd) }
