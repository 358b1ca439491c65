package fsutil

import (
	"strings"

	"golang.org/x/sys/unix"
)

// walkOpen opens path relative to dirfd one component at a time, each
// directory with O_NOFOLLOW relative to the one before, the last component
// with flag|O_NOFOLLOW: a symlink anywhere gives ELOOP. Below a real dirfd
// an absolute path or a ".." component gives EXDEV, as RESOLVE_BENEATH does.
func walkOpen(dirfd int, path string, flag int, perm uint32) (int, error) {
	beneath := dirfd != unix.AT_FDCWD
	start := "."
	if strings.HasPrefix(path, "/") {
		if beneath {
			return -1, unix.EXDEV
		}
		start = "/"
	}
	var parts []string
	for _, p := range strings.Split(path, "/") {
		if p == "" || p == "." {
			continue
		}
		if p == ".." && beneath {
			return -1, unix.EXDEV
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return openatRetry(dirfd, start, flag|unix.O_CLOEXEC, perm)
	}
	fd, err := openatRetry(dirfd, start, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, dir := range parts[:len(parts)-1] {
		next, err := openatRetry(fd, dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.ENOTDIR && isSymlinkAt(fd, dir) {
			err = unix.ELOOP // O_DIRECTORY|O_NOFOLLOW on a symlink says ENOTDIR
		}
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	defer unix.Close(fd)
	last := parts[len(parts)-1]
	out, err := openatRetry(fd, last, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err == unix.ENOTDIR && isSymlinkAt(fd, last) {
		err = unix.ELOOP
	}
	return out, err
}

func openatRetry(dirfd int, name string, flag int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flag, perm)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// isSymlinkAt reports whether name in dirfd is a symlink.
func isSymlinkAt(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}
