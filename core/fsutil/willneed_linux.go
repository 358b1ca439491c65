package fsutil

import "golang.org/x/sys/unix"

// AdviseWillNeed asks the kernel to start reading the file open at fd
// into the page cache (a hint: errors are ignored).
func AdviseWillNeed(fd int) { _ = unix.Fadvise(fd, 0, 0, unix.FADV_WILLNEED) }
