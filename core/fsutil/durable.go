package fsutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrDirSync: a file was renamed into place, but the fsync of its
// directory failed, so the new name may not survive a crash. The file's
// new content is in place (docs/format/docstore.md §4.1).
var ErrDirSync = errors.New("directory fsync failed: the written file may not survive a crash")

// WriteFileDurable writes a record file per docs/format/docstore.md §4.1: mkdir -p the parent
// (0777), write content to w.TempPath(parent) (O_WRONLY|O_CREAT|O_EXCL,
// 0666), fsync, close, rename onto final, fsync the parent directory.
// On failure before the rename the temp file is removed, final is
// untouched and the error carries PHP's message. A failure of the last
// fsync, after the rename, is an error wrapping ErrDirSync: PHP ignores
// it, and a caller keeping PHP's behaviour does so too (errors.Is). The
// temp is created, and renamed, relative to the parent opened without
// following symlinks (nofollow.go): a bucket swapped for a symlink cannot
// redirect the write.
func (w *Writer) WriteFileDurable(final string, content []byte) error {
	dir := parentDir(final)
	d, err := openStorageDir(dir, true)
	if err != nil {
		return err
	}
	defer d.close()
	temp := w.TempPath(dir)
	if err := d.writeTemp(temp, content); err != nil {
		return err
	}
	if err := d.renameTemp(temp, final); err != nil {
		return err
	}
	if err := w.syncDir(d.fd); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrDirSync, dir, err)
	}
	return nil
}

// WriteAtomic replaces path per docs/format/docstore.md §4.2 with the temp name
// <dir>/.<basename>.<hex12>.tmp (protected from sweeps only for 60 s);
// otherwise identical to WriteFileDurable. Prefer Writer.WriteFileDurable
// (PID-named temp) when a Writer is at hand.
func WriteAtomic(path string, content []byte) error {
	dir := parentDir(path)
	d, err := openStorageDir(dir, true)
	if err != nil {
		return err
	}
	defer d.close()
	return d.replace(atomicTemp(dir, path), path, content)
}

// WriteAtomicNoDirSync is WriteAtomic into an existing directory without
// the directory fsync, for a caller that writes many files into one
// directory and then fsyncs it once (FsyncDir) before relying on them.
func WriteAtomicNoDirSync(path string, content []byte) error {
	dir := parentDir(path)
	temp := atomicTemp(dir, path)
	d, err := openStorageDir(dir, false)
	if err != nil {
		return newError("Could not open temporary storage file for writing: "+temp, errors.Unwrap(err))
	}
	defer d.close()
	if err := d.writeTemp(temp, content); err != nil {
		return err
	}
	return d.renameTemp(temp, path)
}

// atomicTemp is WriteAtomic's temp name for path in its directory dir:
// <dir>/.<basename>.<hex12>.tmp.
func atomicTemp(dir, path string) string {
	return dir + "/." + filepath.Base(path) + "." + randomHex(6) + ".tmp"
}

// AppendDurable appends content with one write and fsyncs (docs/format/docstore.md §4.3):
// O_WRONLY|O_CREAT|O_APPEND 0666, parent created if needed, no directory
// fsync.
func AppendDurable(path string, content []byte) error {
	d, err := openStorageDir(parentDir(path), true)
	if err != nil {
		return err
	}
	defer d.close()
	fd, err := openNoSymlinks(d.fd, baseName(path), unix.O_WRONLY|unix.O_CREAT|unix.O_APPEND, 0o666)
	if err != nil {
		return newError("Could not open storage file for appending: "+path, pathError("open", path, err))
	}
	f := os.NewFile(uintptr(fd), path)
	if _, err := f.Write(content); err != nil {
		f.Close()
		return newError("Could not write storage file: "+path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return newError("Could not sync storage file: "+path, err)
	}
	if err := f.Close(); err != nil {
		return newError("Could not write storage file: "+path, err)
	}
	return nil
}

// FsyncDir opens dir read-only, fsyncs and closes it.
func FsyncDir(dir string) error { return FsyncPath(dir) }

// FsyncPath opens a file or directory read-only, fsyncs and closes it.
func FsyncPath(path string) error {
	d, err := OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	serr := d.Sync()
	cerr := d.Close()
	if serr != nil {
		return serr
	}
	return cerr
}

// EnsureDir is a recursive mkdir (0777) with PHP's error text
// "Could not create storage directory: <dir>"; existing dirs are fine. It
// never creates or passes through a symlink.
func EnsureDir(dir string) error { return MkdirAll(dir) }

// storageDir is a directory opened without following symlinks; the temp
// files of a durable write are created, renamed and removed relative to
// it.
type storageDir struct {
	fd   int
	path string
}

// openStorageDir opens dir (creating it and its parents when create is
// set), with PHP's "Could not create storage directory" error.
func openStorageDir(dir string, create bool) (storageDir, error) {
	if create {
		fd, err := openDirCreate(dir)
		return storageDir{fd: fd, path: dir}, err
	}
	fd, err := openNoSymlinks(unix.AT_FDCWD, dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return storageDir{fd: -1}, newError("Could not create storage directory: "+dir, pathError("open", dir, err))
	}
	return storageDir{fd: fd, path: dir}, nil
}

func (d storageDir) close() { unix.Close(d.fd) }

// replace writes content to temp, syncs it and renames it onto final, then
// fsyncs the directory (errors of that fsync ignored, like PHP). temp and
// final are paths directly in d. The temp never survives a failure.
func (d storageDir) replace(temp, final string, content []byte) error {
	if err := d.writeTemp(temp, content); err != nil {
		return err
	}
	if err := d.renameTemp(temp, final); err != nil {
		return err
	}
	_ = unix.Fsync(d.fd)
	return nil
}

// writeTemp creates temp (a new name: O_EXCL, never a symlink) with
// content, fsynced and closed; on failure the temp is removed.
func (d storageDir) writeTemp(temp string, content []byte) error {
	fd, err := openNoSymlinks(d.fd, baseName(temp), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o666)
	if err != nil {
		return newError("Could not open temporary storage file for writing: "+temp, pathError("open", temp, err))
	}
	f := os.NewFile(uintptr(fd), temp)
	fail := func(msg string, cause error) error {
		f.Close()
		d.remove(temp)
		return newError(msg+temp, cause)
	}
	if _, err := f.Write(content); err != nil {
		return fail("Could not write storage file: ", err)
	}
	if err := f.Sync(); err != nil {
		return fail("Could not sync storage file: ", err)
	}
	if err := f.Close(); err != nil {
		// close reports delayed write errors (NFS, quota): the data is not safe.
		d.remove(temp)
		return newError("Could not write storage file: "+temp, err)
	}
	return nil
}

// renameTemp renames a written temp onto final (both directly in d); on
// failure the temp is removed.
func (d storageDir) renameTemp(temp, final string) error {
	if err := unix.Renameat(d.fd, baseName(temp), d.fd, baseName(final)); err != nil {
		d.remove(temp)
		return newError("Could not atomically replace storage file: "+final, pathError("rename", final, err))
	}
	return nil
}

// remove unlinks name (a path directly in d), errors ignored.
func (d storageDir) remove(path string) { _ = unix.Unlinkat(d.fd, baseName(path), 0) }

// parentDir is PHP's dirname for absolute or relative slash paths: the path
// without its last component and the slashes before it, kept verbatim
// otherwise (no cleaning, so "r//c/data/ab/x" gives "r//c/data/ab" and
// temp names in error messages match PHP's).
func parentDir(p string) string {
	p = strings.TrimRight(p, "/")
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "."
	}
	d := strings.TrimRight(p[:i], "/")
	if d == "" {
		return "/"
	}
	return d
}
