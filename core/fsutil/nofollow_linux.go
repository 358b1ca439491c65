package fsutil

import (
	"os"

	"golang.org/x/sys/unix"
)

// openNoSymlinks is openat2(2) with RESOLVE_NO_SYMLINKS (and
// RESOLVE_BENEATH below a real dirfd): the kernel refuses a symlink at any
// component in the same walk that opens the file. Kernels without openat2
// (before 5.6, or a seccomp filter answering ENOSYS) get the component walk.
func openNoSymlinks(dirfd int, path string, flag int, perm uint32) (int, error) {
	how := unix.OpenHow{Flags: uint64(flag | unix.O_CLOEXEC), Resolve: unix.RESOLVE_NO_SYMLINKS}
	if flag&unix.O_CREAT != 0 {
		how.Mode = uint64(perm)
	}
	if dirfd != unix.AT_FDCWD {
		how.Resolve |= unix.RESOLVE_BENEATH
	}
	for {
		fd, err := unix.Openat2(dirfd, path, &how)
		switch err {
		case nil:
			return fd, nil
		case unix.EINTR, unix.EAGAIN: // EAGAIN: a rename raced the walk
			continue
		case unix.ENOSYS:
			return walkOpen(dirfd, path, flag, perm)
		}
		return -1, err
	}
}

// statNoSymlinks opens path as an O_PATH descriptor (no permission needed
// on the file itself) without following any symlink and fstats it.
func statNoSymlinks(path string) (os.FileInfo, error) {
	fd, err := openNoSymlinks(unix.AT_FDCWD, path, unix.O_PATH, 0)
	if err != nil {
		return nil, pathError("stat", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, &SymlinkError{Op: "stat", Path: path} // the walk fallback opens a last symlink itself
	}
	return fi, err
}
