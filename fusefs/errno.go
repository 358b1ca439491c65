package fusefs

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// errnoOf maps a store error to the errno a tool sees. An error carrying an
// errno (I/O, disk full, permissions) keeps it; a closed store is EIO;
// fallback is used for the rest.
func errnoOf(err error, fallback syscall.Errno) syscall.Errno {
	if err == nil {
		return 0
	}
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
		return errno
	case errors.Is(err, fs.ErrNotExist):
		return syscall.ENOENT
	case errors.Is(err, fs.ErrExist):
		return syscall.EEXIST
	case errors.Is(err, fs.ErrPermission):
		return syscall.EACCES
	case errors.Is(err, os.ErrClosed):
		return syscall.EIO
	}
	return fallback
}

// commitErrno maps a failed commit: EINVAL for rejected content (invalid
// JSONC, wrong id, unique violation), the carried errno for system errors
// (ENOSPC, EIO, ...), EIO for every other internal failure.
func commitErrno(err error) syscall.Errno {
	if errors.Is(err, ErrRejected) {
		return syscall.EINVAL
	}
	return errnoOf(err, syscall.EIO)
}

// changesContent reports whether open flags would write or truncate the
// file: what a read-only file (a view, a control file) refuses.
func changesContent(flags uint32) bool {
	return flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&syscall.O_TRUNC != 0
}
