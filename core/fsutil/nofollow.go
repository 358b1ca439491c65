package fsutil

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Nothing under a storage root is ever reached through a symlink
// (README.md, "Consistency with live PHP writers"): whoever can write ROOT must not make the engines read or
// write what ROOT's reader can reach elsewhere. Every storage path is opened
// by openNoSymlinks, which fails when any component of the path is a
// symlink, and every create, rename and removal is done relative to a
// directory opened that way. An absolute path is checked from "/", so a
// storage root given with a symlink in it must first go through ResolveRoot.

// SymlinkError is returned for a path that is, or passes through, a
// symlink. It unwraps to syscall.ELOOP.
type SymlinkError struct {
	Op   string
	Path string
}

func (e *SymlinkError) Error() string {
	return e.Op + " " + e.Path + ": refused: the path is or passes through a symlink, and storage paths never follow symlinks"
}

func (e *SymlinkError) Unwrap() error { return syscall.ELOOP }

// pathError is the error of op on path: a *SymlinkError for ELOOP (only a
// symlink gives ELOOP here), else an *os.PathError.
func pathError(op, path string, err error) error {
	if err == unix.ELOOP {
		return &SymlinkError{Op: op, Path: path}
	}
	return &os.PathError{Op: op, Path: path, Err: err}
}

// OpenAt opens rel relative to the directory dirfd (unix.AT_FDCWD: the
// working directory; rel may then be absolute) like openat(2) with
// O_CLOEXEC added, failing with ELOOP when any component of rel is a
// symlink. Below a real dirfd, rel must stay beneath it ("..", absolute
// paths: EXDEV). It returns a bare errno, for callers that build their own
// errors on a hot path.
func OpenAt(dirfd int, rel string, flag int, perm uint32) (int, error) {
	return openNoSymlinks(dirfd, rel, flag, perm)
}

// OpenFile is os.OpenFile for storage files and directories that never
// follows a symlink (errors: *SymlinkError, else *os.PathError), minus the
// netpoller probing os.OpenFile does on Linux for every file it opens:
// these descriptors only ever do blocking I/O.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := openNoSymlinks(unix.AT_FDCWD, path, flag, uint32(perm.Perm()))
	if err != nil {
		return nil, pathError("open", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// Open is os.Open (read-only) without following symlinks.
func Open(path string) (*os.File, error) { return OpenFile(path, os.O_RDONLY, 0) }

// PathError is the error of op on path for an errno from OpenAt: a
// *SymlinkError for ELOOP, else an *os.PathError.
func PathError(op, path string, err error) error { return pathError(op, path, err) }

// ReadFile is os.ReadFile without following symlinks.
func ReadFile(path string) ([]byte, error) {
	f, err := OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 512
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() < 1<<30 {
		size = int(fi.Size()) + 1 // one more, so that EOF is seen without growing
	}
	buf := make([]byte, 0, size)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, cap(buf))
		}
	}
}

// ReadDir is os.ReadDir (sorted by name) of a directory opened without
// following symlinks. A symlink entry is listed with fs.ModeSymlink, never
// as a directory.
func ReadDir(dir string) ([]os.DirEntry, error) {
	f, err := OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// Stat is os.Lstat that also fails with *SymlinkError when path itself is
// a symlink or any directory on the way to it is one.
func Stat(path string) (os.FileInfo, error) { return statNoSymlinks(path) }

// ResolveRoot returns root unchanged when no component of it is a symlink,
// else the path with every symlink resolved (filepath.EvalSymlinks): the
// operator names the storage root, and only what is below it is checked.
// Call it once, when a command starts.
func ResolveRoot(root string) (string, error) {
	fd, err := openNoSymlinks(unix.AT_FDCWD, root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err == nil {
		unix.Close(fd)
		return root, nil
	}
	if err != unix.ELOOP {
		return root, nil // no symlink on the way: the caller's checks report the rest
	}
	resolved, err := resolveExisting(root)
	if err != nil {
		return "", &os.PathError{Op: "resolve", Path: root, Err: err}
	}
	return resolved, nil
}

// resolveExisting is filepath.EvalSymlinks of the longest existing prefix
// of p, with the missing rest appended (a ROOT that is still to be made).
func resolveExisting(p string) (string, error) {
	resolved, err := filepath.EvalSymlinks(p)
	if !errors.Is(err, fs.ErrNotExist) {
		return resolved, err
	}
	parent := filepath.Dir(p)
	if parent == p {
		return "", err
	}
	rp, perr := resolveExisting(parent)
	if perr != nil {
		return "", perr
	}
	return filepath.Join(rp, filepath.Base(p)), nil
}
