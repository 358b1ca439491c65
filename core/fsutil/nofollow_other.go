//go:build !linux

package fsutil

import (
	"os"

	"golang.org/x/sys/unix"
)

// openNoSymlinks is the component walk: without openat2, every directory
// on the way is opened with O_NOFOLLOW relative to the previous one.
func openNoSymlinks(dirfd int, path string, flag int, perm uint32) (int, error) {
	return walkOpen(dirfd, path, flag, perm)
}

// statNoSymlinks checks the directories on the way without following
// symlinks, then lstats path (two steps here, one on Linux).
func statNoSymlinks(path string) (os.FileInfo, error) {
	dirfd, err := openNoSymlinks(unix.AT_FDCWD, parentDir(path), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, pathError("stat", path, err)
	}
	unix.Close(dirfd)
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, &SymlinkError{Op: "stat", Path: path}
	}
	return fi, err
}
