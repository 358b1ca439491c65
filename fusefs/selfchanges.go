package fusefs

import (
	"os"
	"sync"
	"syscall"
	"time"
)

// selfChanges remembers the record files this mount has just written or
// removed, so that the watcher does not invalidate, milliseconds later,
// what the mount has already told the kernel itself (writeHandle.commit,
// Unlink, Rename). Each invalidation takes the kernel's lock on the
// collection folder, which the next create in it then waits for.
//
// A change is recognised by the file it left: its inode, size and mtime,
// or its absence. An outside write after ours makes a new file (storh
// writes by rename), which does not match, so it is invalidated as
// before; a match older than selfChangeWindow is not trusted.
//
// The stat is taken after the change, so an outside change landing between
// the mount's change and that stat is noted as the mount's own, and its
// watcher event is skipped. That loses nothing, because every mutation
// through the mount invalidates after it notes: a commit queues
// NotifyContent (and a rename NotifyEntry) once note has run, and an
// unlink's entry is dropped by the kernel itself (fuse_entry_unlinked), so
// the kernel asks again and finds the outside file.
type selfChanges struct {
	mu      sync.Mutex
	records map[recordKey]noted
}

// selfChangeWindow bounds how late an event may arrive and still be
// recognised as the mount's own (the watcher takes a few milliseconds).
const selfChangeWindow = 2 * time.Second

// selfChangesPruneAt is the map size from which stale entries are dropped.
const selfChangesPruneAt = 4096

type recordKey struct{ collection, id string }

// fileIdentity is what a stat of a record file showed.
type fileIdentity struct {
	exists bool
	ino    uint64
	size   int64
	mtime  int64
}

// identityOf describes a stat result; ok is false when it says nothing
// certain (an error other than "does not exist").
func identityOf(fi os.FileInfo, err error) (id fileIdentity, ok bool) {
	if err != nil {
		return fileIdentity{}, os.IsNotExist(err)
	}
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat {
		return fileIdentity{}, false
	}
	return fileIdentity{exists: true, ino: st.Ino, size: fi.Size(), mtime: fi.ModTime().UnixNano()}, true
}

// noted is a file the mount left, and when.
type noted struct {
	file fileIdentity
	at   time.Time
}

// note records that the mount left record id of collection as a stat
// taken after the change shows it (fi, err).
func (s *selfChanges) note(collection, id string, fi os.FileInfo, err error) {
	file, ok := identityOf(fi, err)
	key := recordKey{collection, id}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok {
		delete(s.records, key)
		return
	}
	if s.records == nil {
		s.records = map[recordKey]noted{}
	}
	if len(s.records) >= selfChangesPruneAt {
		for k, n := range s.records {
			if now.Sub(n.at) >= selfChangeWindow {
				delete(s.records, k)
			}
		}
	}
	s.records[key] = noted{file: file, at: now}
}

// matches reports whether record id of collection is, by a stat taken
// now (fi, err), still the file the mount itself left within the window.
func (s *selfChanges) matches(collection, id string, fi os.FileInfo, err error) bool {
	file, ok := identityOf(fi, err)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, known := s.records[recordKey{collection, id}]
	return known && n.file == file && time.Since(n.at) < selfChangeWindow
}
