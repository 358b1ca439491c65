package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Creates, renames and removals of storage paths: each is done relative to
// the parent directory opened without following symlinks (nofollow.go), so
// neither a symlinked directory on the way nor a symlink swapped in for
// one can redirect it outside the storage root.

// Remove unlinks the file (or empty directory) path relative to its parent
// directory, opened without following symlinks; a symlink named path is
// removed itself, never its target.
func Remove(path string) error {
	return atParent("remove", path, func(dirfd int, name string) error {
		err := unix.Unlinkat(dirfd, name, 0)
		if err == unix.EISDIR || err == unix.EPERM {
			if rerr := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); rerr != unix.ENOTDIR {
				err = rerr
			}
		}
		return err
	})
}

// Unlink unlinks the file path (never a directory) relative to its parent
// directory opened without following symlinks; a symlink named path is
// removed itself.
func Unlink(path string) error {
	return atParent("unlink", path, func(dirfd int, name string) error {
		return unix.Unlinkat(dirfd, name, 0)
	})
}

// RemoveAll is os.RemoveAll without following any symlink: path's parent
// is opened without symlinks and everything below is removed relative to
// directories opened with O_NOFOLLOW. A missing path is no error.
func RemoveAll(path string) error {
	err := atParent("remove", path, removeAllAt)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func removeAllAt(dirfd int, name string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || err == unix.ENOENT {
		return nil
	}
	if err != unix.EISDIR && err != unix.EPERM {
		return err
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	d := os.NewFile(uintptr(fd), name)
	names, err := d.Readdirnames(-1)
	if err == nil {
		for _, n := range names {
			if err = removeAllAt(fd, n); err != nil {
				break
			}
		}
	}
	d.Close()
	if err != nil {
		return err
	}
	if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != unix.ENOENT {
		return err
	}
	return nil
}

// Rename renames oldpath to newpath, each relative to its parent directory
// opened without following symlinks; a symlink at newpath is replaced, not
// followed.
func Rename(oldpath, newpath string) error {
	return atParent("rename", oldpath, func(olddir int, oldname string) error {
		return atParent("rename", newpath, func(newdir int, newname string) error {
			return unix.Renameat(olddir, oldname, newdir, newname)
		})
	})
}

// MkdirAll is os.MkdirAll (0777) that never creates or passes through a
// symlink; an existing directory is fine.
func MkdirAll(dir string) error {
	fd, err := openDirCreate(dir)
	if err != nil {
		return err
	}
	unix.Close(fd)
	return nil
}

// Chtimes sets path's access and modification times without following
// symlinks.
func Chtimes(path string, atime, mtime time.Time) error {
	return atParent("chtimes", path, func(dirfd int, name string) error {
		ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
		return unix.UtimesNanoAt(dirfd, name, ts, unix.AT_SYMLINK_NOFOLLOW)
	})
}

// atParent opens path's parent directory without following symlinks and
// calls fn with it and path's last component. Errors name path.
func atParent(op, path string, fn func(dirfd int, name string) error) error {
	dir, name := parentDir(path), baseName(path)
	dirfd, err := openNoSymlinks(unix.AT_FDCWD, dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return pathError(op, path, err)
	}
	defer unix.Close(dirfd)
	if err := fn(dirfd, name); err != nil {
		return pathError(op, path, err)
	}
	return nil
}

// openDirCreate opens directory dir without following symlinks, first
// creating it and its missing parents (0777) relative to their verified
// parents. A racing creator is fine.
func openDirCreate(dir string) (int, error) {
	fd, err := openNoSymlinks(unix.AT_FDCWD, dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != unix.ENOENT {
		if err != nil {
			return -1, newError("Could not create storage directory: "+dir, pathError("mkdir", dir, err))
		}
		return fd, nil
	}
	parent := parentDir(dir)
	if parent == dir {
		return -1, newError("Could not create storage directory: "+dir, pathError("mkdir", dir, err))
	}
	pfd, err := openDirCreate(parent)
	if err != nil {
		return -1, newError("Could not create storage directory: "+dir, errors.Unwrap(err))
	}
	defer unix.Close(pfd)
	name := baseName(dir)
	if err := unix.Mkdirat(pfd, name, 0o777); err != nil && err != unix.EEXIST {
		return -1, newError("Could not create storage directory: "+dir, pathError("mkdir", dir, err))
	}
	fd, err = openNoSymlinks(pfd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return -1, newError("Could not create storage directory: "+dir, pathError("mkdir", dir, err))
	}
	return fd, nil
}

// baseName is path's last component (after trailing slashes are dropped).
func baseName(p string) string {
	p = strings.TrimRight(p, "/")
	if p == "" {
		return "/"
	}
	return p[strings.LastIndexByte(p, '/')+1:]
}
