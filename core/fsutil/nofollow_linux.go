package fsutil

import (
	"io/fs"
	"os"
	"syscall"
	"time"

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
	fi := &statInfo{name: baseName(path)}
	err = syscall.Fstat(fd, &fi.st)
	unix.Close(fd)
	switch {
	case err != nil:
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	case fi.st.Mode&syscall.S_IFMT == syscall.S_IFLNK:
		return nil, &SymlinkError{Op: "stat", Path: path} // the walk fallback opens a last symlink itself
	}
	return fi, nil
}

// statInfo is the os.FileInfo of an fstat, as os.Stat gives it (Sys is
// the *syscall.Stat_t), without the os.File that os.File.Stat needs.
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

// Mode converts st_mode as os.Stat does.
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
