// Storing a record: a closed writer or a scratch file renamed onto <id>.jsonc.

package fusefs

import (
	"syscall"
)

// commitScratch stores sf's content as record id and retires the scratch
// name. sf stays locked from the snapshot to the promotion, so no write
// through an open descriptor falls between them; later writes through such
// a descriptor go to the record (scratchHandle). The kernel's dentry for
// newName then points at the scratch inode, which forwards to the record
// until the entry is invalidated.
func (c *collectionNode) commitScratch(sf *scratchFile, name, id, newName string, noReplace bool) syscall.Errno {
	s, errno := c.store()
	if errno != 0 {
		return errno
	}
	if errno := c.promoteScratch(s, sf, id, noReplace); errno != 0 {
		return errno
	}
	c.mu.Lock()
	if c.scratch[name] == sf {
		delete(c.scratch, name)
	}
	c.mu.Unlock()
	old := c.GetChild(newName)
	c.m.notify(func() {
		if old != nil {
			old.NotifyContent(0, 0)
		}
		c.NotifyEntry(newName)
	})
	return 0
}

func (c *collectionNode) promoteScratch(s RecordStore, sf *scratchFile, id string, noReplace bool) syscall.Errno {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if sf.promoted != "" {
		return syscall.ENOENT
	}
	var times *fileTimes
	if sf.setTimes {
		times = &fileTimes{atime: sf.atime, mtime: sf.mtime}
	}
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	if noReplace && c.holding(id) {
		return syscall.EEXIST // a new record being written under that name
	}
	errno, err := sf.data.commit(func(content []byte) (syscall.Errno, error) {
		return c.tryPutLocked(s, id, content, times, noReplace)
	})
	if err != nil {
		c.reportFailure(id, errno, failureReason(id, err))
	}
	if errno != 0 {
		return errno
	}
	sf.promoted = id
	sf.data.free()
	return 0
}

// commitWriter commits a write handle's buffer, unless its record was
// unlinked meanwhile (then nothing is stored and the close succeeds). A
// failure is returned with its reason, not reported: the handle decides
// (writeHandle.commitBuffer).
//
// Lock order of every commit: commitMu, then the budget's commit
// reservation (memBuf.commit). A commit waiting for memory may hold
// commitMu, but one holding a reservation never waits for a commitMu.
func (c *collectionNode) commitWriter(h *writeHandle, buf *memBuf, times *fileTimes, mustBeNew bool) (syscall.Errno, error) {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	if h.orphaned.Load() {
		return 0, nil
	}
	return buf.commit(func(content []byte) (syscall.Errno, error) {
		return c.tryPutLocked(h.store, h.id, content, times, mustBeNew)
	})
}

// putLocked is tryPutLocked for a commit whose failure reaches the user at
// once (a rename, a truncate by path): a failure is reported.
func (c *collectionNode) putLocked(s RecordStore, id string, content []byte, times *fileTimes, mustBeNew bool) syscall.Errno {
	errno, err := c.tryPutLocked(s, id, content, times, mustBeNew)
	if err != nil {
		c.reportFailure(id, errno, failureReason(id, err))
	}
	return errno
}

// tryPutLocked commits content as record id (call under commitMu), then
// applies explicit times (cp -p, rsync -t). mustBeNew fails with EEXIST
// when the record exists, checked under the collection write lock. On
// failure err says why (nil when the collection was removed: ENOENT) and
// the caller reports it; the stored record is untouched unless the store
// failed after writing it (index drift, a failed directory fsync:
// fsutil.ErrDirSync, so the record may not survive a crash, EIO).
func (c *collectionNode) tryPutLocked(s RecordStore, id string, content []byte, times *fileTimes, mustBeNew bool) (syscall.Errno, error) {
	if c.isRemoved() {
		return syscall.ENOENT, nil
	}
	defer c.mutations.Add(1)
	put := s.PutRaw
	if mustBeNew {
		put = s.PutRawNew
	}
	if err := put(id, content); err != nil {
		return commitErrno(err), err
	}
	if times != nil {
		if err := s.SetRecordTimes(id, times.atime, times.mtime); err != nil {
			c.m.log.Printf("set times of %s/%s: %v", c.rel, id, err)
		}
	}
	c.noteSelfChange(s, id)
	return 0, nil
}
