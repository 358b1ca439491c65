package fsutil

import (
	"os"
	"syscall"
)

// OpenFile is os.OpenFile for storage files and directories, minus the
// netpoller probing os.OpenFile does on Linux for every file it opens
// (four fcntl calls and an epoll_ctl that fails for regular files and
// directories): these descriptors only ever do blocking I/O. Errors are
// *os.PathError like os.OpenFile's, so errors.Is(err, os.ErrNotExist)
// and friends work the same.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == nil {
			return os.NewFile(uintptr(fd), path), nil
		}
		if err != syscall.EINTR {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
}
