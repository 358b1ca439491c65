package fusefs

import (
	"errors"
	"io/fs"
	"syscall"
)

// errnoOf maps a store error to the errno a tool sees. An error carrying an
// errno (I/O, disk full, permissions) keeps it; fallback is used for the
// rest (EINVAL for a rejected commit: invalid JSONC, wrong id, unique-index
// violation; EIO elsewhere).
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
	}
	return fallback
}
