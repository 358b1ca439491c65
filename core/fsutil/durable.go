package fsutil

import (
	"os"
	"path/filepath"
	"strings"
)

// WriteFileDurable writes a record file per spec 4.1: mkdir -p the parent
// (0777), write content to w.TempPath(parent) (O_WRONLY|O_CREAT|O_TRUNC,
// 0666), fsync, close, rename onto final, fsync the parent directory
// (errors of that last fsync ignored, like PHP). On failure the temp file
// is removed and the error carries PHP's message.
func (w *Writer) WriteFileDurable(final string, content []byte) error {
	dir := parentDir(final)
	if err := ensureDir(dir); err != nil {
		return err
	}
	return replaceVia(w.TempPath(dir), final, content)
}

// WriteAtomic replaces path per spec 4.2 with the temp name
// <dir>/.<basename>.<hex12>.tmp (protected from sweeps only for 60 s);
// otherwise identical to WriteFileDurable. Prefer Writer.WriteFileDurable
// (PID-named temp) when a Writer is at hand.
func WriteAtomic(path string, content []byte) error {
	dir := parentDir(path)
	if err := ensureDir(dir); err != nil {
		return err
	}
	return replaceVia(atomicTemp(dir, path), path, content)
}

// WriteAtomicNoDirSync is WriteAtomic into an existing directory without
// the directory fsync, for a caller that writes many files into one
// directory and then fsyncs it once (FsyncDir) before relying on them.
func WriteAtomicNoDirSync(path string, content []byte) error {
	temp := atomicTemp(parentDir(path), path)
	if err := writeTemp(temp, content); err != nil {
		return err
	}
	return renameTemp(temp, path)
}

// atomicTemp is WriteAtomic's temp name for path in its directory dir:
// <dir>/.<basename>.<hex12>.tmp.
func atomicTemp(dir, path string) string {
	return dir + "/." + filepath.Base(path) + "." + randomHex(6) + ".tmp"
}

// AppendDurable appends content with one write and fsyncs (spec 4.3):
// O_WRONLY|O_CREAT|O_APPEND 0666, parent created if needed, no directory
// fsync.
func AppendDurable(path string, content []byte) error {
	if err := ensureDir(parentDir(path)); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		return newError("Could not open storage file for appending: "+path, err)
	}
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
// "Could not create storage directory: <dir>"; existing dirs are fine.
func EnsureDir(dir string) error { return ensureDir(dir) }

func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		// A racing creator is fine as long as a directory is there now.
		if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
			return nil
		}
		return newError("Could not create storage directory: "+dir, err)
	}
	return nil
}

// replaceVia writes content to temp, syncs it and renames it onto final,
// then fsyncs final's directory. The temp never survives a failure.
func replaceVia(temp, final string, content []byte) error {
	if err := writeTemp(temp, content); err != nil {
		return err
	}
	return commitTemp(temp, final)
}

// writeTemp creates temp with content, fsynced and closed; on failure the
// temp is removed.
func writeTemp(temp string, content []byte) error {
	f, err := OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return newError("Could not open temporary storage file for writing: "+temp, err)
	}
	fail := func(msg string, cause error) error {
		f.Close()
		os.Remove(temp)
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
		os.Remove(temp)
		return newError("Could not write storage file: "+temp, err)
	}
	return nil
}

// commitTemp renames a written temp onto final and fsyncs final's
// directory (errors of that fsync ignored, like PHP); on a failed rename
// the temp is removed.
func commitTemp(temp, final string) error {
	if err := renameTemp(temp, final); err != nil {
		return err
	}
	_ = FsyncDir(parentDir(final))
	return nil
}

// renameTemp renames a written temp onto final; on failure the temp is
// removed.
func renameTemp(temp, final string) error {
	if err := os.Rename(temp, final); err != nil {
		os.Remove(temp)
		return newError("Could not atomically replace storage file: "+final, err)
	}
	return nil
}

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
