package fsutil

import (
	"errors"

	"golang.org/x/sys/unix"
)

// PreparedFile is the first half of WriteAtomic: the content is in a
// fsynced temp file next to its target, not yet renamed onto it. It lets
// a caller overlap the temp file's fsync with other work and still commit
// (rename) only after that work is done. Exactly one of Commit or Abort
// must be called.
type PreparedFile struct {
	temp, final string
}

// PrepareAtomic writes content to <dir>/.<basename>.<hex12>.tmp (the
// temp name and steps of WriteAtomic), fsyncs and closes it.
func PrepareAtomic(path string, content []byte) (*PreparedFile, error) {
	dir := parentDir(path)
	d, err := openStorageDir(dir, true)
	if err != nil {
		return nil, err
	}
	defer d.close()
	temp := atomicTemp(dir, path)
	if err := d.writeTemp(temp, content); err != nil {
		return nil, err
	}
	return &PreparedFile{temp: temp, final: path}, nil
}

// Commit renames the temp onto the target and fsyncs the target's
// directory: PrepareAtomic followed by Commit is WriteAtomic.
// The directory is opened again without following symlinks: one swapped
// for a symlink since PrepareAtomic fails the commit.
func (p *PreparedFile) Commit() error {
	d, err := openStorageDir(parentDir(p.final), false)
	if err != nil {
		return newError("Could not atomically replace storage file: "+p.final, errors.Unwrap(err))
	}
	defer d.close()
	if err := d.renameTemp(p.temp, p.final); err != nil {
		return err
	}
	_ = unix.Fsync(d.fd)
	return nil
}

// Abort removes the temp file.
func (p *PreparedFile) Abort() { _ = Remove(p.temp) }
