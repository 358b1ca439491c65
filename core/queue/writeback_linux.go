package queue

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing f[off:off+n] to disk now
// (sync_file_range SYNC_FILE_RANGE_WRITE, asynchronous), so that the batch's
// fsync finds less to do. A hint only: it guarantees nothing, errors are
// ignored, and the fsync still follows.
func startWriteback(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_ = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}
