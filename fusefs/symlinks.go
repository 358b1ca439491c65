package fusefs

import (
	"errors"
	"sync"
	"syscall"

	"github.com/storhfs/storhfs/core/fsutil"
)

// symlinkLog reports each symlink the engines refused (fsutil.SymlinkError:
// nothing under ROOT is reached through a symlink) once per path and
// mount, to the mount's log and .storhfs/errors, so a planted link is
// reported without flooding either on every lookup. It remembers at most
// maxRefusalsLogged paths.
type symlinkLog struct {
	refusals *refusalLog

	mu   sync.Mutex
	seen map[string]bool
	full bool // maxRefusalsLogged paths seen: no more are logged
}

const maxRefusalsLogged = 4096

// note reports whether err is a refused symlink, logging it the first time
// its path is seen.
func (r *symlinkLog) note(err error) bool {
	var se *fsutil.SymlinkError
	if !errors.As(err, &se) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.seen[se.Path]:
	case len(r.seen) >= maxRefusalsLogged:
		if !r.full {
			r.full = true
			r.refusals.report("more symlinks under ROOT refused; further ones are not logged")
		}
	default:
		if r.seen == nil {
			r.seen = map[string]bool{}
		}
		r.seen[se.Path] = true
		r.refusals.report("refused %v", se)
	}
	return true
}

// missingDirErrno is the errno of a lookup of rel when it is no collection,
// log, queue or namespace: ELOOP (logged once) when rel, or one of the
// entries that would make it one (Catalog.Markers), is a symlink, which is refused rather
// than followed; else ENOENT.
func (m *mountState) missingDirErrno(rel string) syscall.Errno {
	for _, sub := range m.catalog.Markers() {
		if _, err := m.catalog.Stat(childRel(rel, sub)); m.symlinks.note(err) {
			return syscall.ELOOP
		}
	}
	return syscall.ENOENT
}

// refusalOf is the error of a directory under ROOT that must not be used:
// one that is, or passes through, a symlink (logged once); nil otherwise.
func (m *mountState) refusalOf(dir string) error {
	_, err := fsutil.Stat(dir)
	if m.symlinks.note(err) {
		return err
	}
	return nil
}
