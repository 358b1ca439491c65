package fsutil

import "os"

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
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	temp := atomicTemp(dir, path)
	if err := writeTemp(temp, content); err != nil {
		return nil, err
	}
	return &PreparedFile{temp: temp, final: path}, nil
}

// Commit renames the temp onto the target and fsyncs the target's
// directory: PrepareAtomic followed by Commit is WriteAtomic.
func (p *PreparedFile) Commit() error { return commitTemp(p.temp, p.final) }

// Abort removes the temp file.
func (p *PreparedFile) Abort() { _ = os.Remove(p.temp) }
