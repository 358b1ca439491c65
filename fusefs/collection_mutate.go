// Create, unlink and rename in a collection.

package fusefs

import (
	"context"
	"errors"
	"io/fs"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// Create opens a new record (committed on close) or scratch file; any
// other name is refused with EPERM.
func (c *collectionNode) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	if c.m.readOnly {
		return nil, nil, 0, syscall.EROFS
	}
	if c.isRemoved() {
		return nil, nil, 0, syscall.ENOENT
	}
	if errno := nameErrno(name); errno != 0 {
		return nil, nil, 0, errno
	}
	if id, ok := recordID(name); ok {
		h, errno := c.createRecord(id, flags)
		if errno == syscall.EEXIST {
			c.shownMissing(name)
		}
		if errno != 0 {
			return nil, nil, 0, errno
		}
		node := c.recordInode(ctx, name, id, storedFile{}) // the writer's node: no version
		if _, errno := c.recordEntry(id, out, nil); errno != 0 {
			h.Release(ctx)
			return nil, nil, 0, errno
		}
		if c.m.noOpen {
			// No RELEASE would ever end a handle (nodewrites.go).
			c.adoptNodeWriter(ctx, node, h)
			return node, nil, fuse.FOPEN_DIRECT_IO, 0
		}
		return node, h, fuse.FOPEN_DIRECT_IO, 0
	}
	if isScratchName(name) {
		sf, errno := c.createScratch(name, flags)
		if errno != 0 {
			return nil, nil, 0, errno
		}
		sf.attr(&out.Attr, c.m.filePerm())
		if c.m.noOpen {
			return c.scratchInode(ctx, sf), nil, fuse.FOPEN_DIRECT_IO, 0
		}
		return c.scratchInode(ctx, sf), c.openScratch(sf), fuse.FOPEN_DIRECT_IO, 0
	}
	c.m.refusals.report("create %s refused: not a record name (<uuidv7>.jsonc) nor a known temporary name", childRel(c.rel, name))
	return nil, nil, 0, syscall.EPERM
}

// createRecord opens record id for writing on behalf of open(O_CREAT). The
// existence check and the registration of the handle happen under c.mu, so
// two O_EXCL creates of one name cannot both succeed here; the commit of an
// O_EXCL handle re-checks under the collection write lock (PutRawNew).
func (c *collectionNode) createRecord(id string, flags uint32) (*writeHandle, syscall.Errno) {
	s, errno := c.store()
	if errno != 0 {
		return nil, errno
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := s.StatRecord(id)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, errnoOf(err, syscall.EIO)
	}
	exists := err == nil || c.holdingLocked(id)
	excl := flags&syscall.O_EXCL != 0
	if exists && excl {
		return nil, syscall.EEXIST
	}
	trunc := flags&syscall.O_TRUNC != 0
	return c.registerWriterLocked(&writeHandle{
		c: c, store: s, id: id,
		created:   !exists,
		exclusive: excl,
		loaded:    trunc || err != nil,
		dirty:     trunc && err == nil,
	}), 0
}

// Unlink deletes a record with its index entries, or drops a scratch file.
// The record's open write handles are orphaned: their later commits store
// nothing, so the record does not come back.
func (c *collectionNode) Unlink(ctx context.Context, name string) syscall.Errno {
	if c.m.readOnly {
		return syscall.EROFS
	}
	if id, ok := recordID(name); ok {
		return c.unlinkRecord(id)
	}
	if isHiddenView(name) {
		return syscall.EROFS
	}
	c.mu.Lock()
	sf, ok := c.scratch[name]
	if ok {
		delete(c.scratch, name)
	}
	c.mu.Unlock()
	if !ok {
		return syscall.ENOENT
	}
	sf.unname()
	return 0
}

func (c *collectionNode) unlinkRecord(id string) syscall.Errno {
	s, errno := c.store()
	if errno != 0 {
		return errno
	}
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	_, err := s.StatRecord(id)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return errnoOf(err, syscall.EIO)
	}
	orphaned := c.orphanWriters(id)
	if missing {
		if orphaned > 0 {
			return 0 // a new record not stored yet: its name is gone now
		}
		return syscall.ENOENT
	}
	defer c.mutations.Add(1)
	if err := s.Delete(id); err != nil {
		c.m.log.Printf("delete %s/%s: %v", c.rel, id, err)
		return errnoOf(err, syscall.EIO)
	}
	c.noteSelfChange(s, id)
	return 0
}

// dropName makes the kernel forget its entry of name (a new record whose
// commit failed) before the request being answered returns, so a stat made
// after the failing close(2) asks again and finds no name: the entry and
// attributes the CREATE reply gave live up to two clock ticks however
// short their timeout. Call it only from FLUSH: the notification needs the
// directory's lock, and the kernel holds no lock while a FLUSH is
// answered, nor does the caller hold one of ours; requests holding the
// directory's lock are answered by other goroutines meanwhile (over
// io_uring: by the queue's spare threads). It runs through the notifier,
// outside this request, and is waited for until ctx ends (the request was
// interrupted, or the mount is going away) or for notifyWait at most, as
// no interrupt reaches a request served over io_uring.
func (c *collectionNode) dropName(ctx context.Context, name string) {
	c.m.notifyAndWait(ctx, func() { c.NotifyEntry(name) })
}

// noteSelfChange tells the watcher that record id is as this mount left
// it, which the kernel already knows (selfchanges.go).
func (c *collectionNode) noteSelfChange(s RecordStore, id string) {
	fi, err := s.StatRecord(id)
	c.m.self.note(c.rel, id, fi, err)
}

// orphanWriters detaches the open write handles of id (call under
// commitMu); it returns how many there were.
func (c *collectionNode) orphanWriters(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.writers[id])
	for h := range c.writers[id] {
		h.orphaned.Store(true)
	}
	delete(c.writers, id)
	delete(c.nodeWriters.byID, id) // its nodes keep it; a new create starts another
	return n
}

// Rename moves scratch files. A scratch file renamed onto a record name is
// the atomic replace: its content is committed as that record, and the
// scratch file stops existing. Records themselves are never renamed: that
// would change their identity. A record renamed onto a scratch name (emacs'
// backup by rename, JetBrains' ___jb_old___) is copied there instead and
// stays (copyToScratch).
func (c *collectionNode) Rename(ctx context.Context, name string, newParent gofs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	errno := c.rename(name, newParent, newName, flags)
	if errno == syscall.EEXIST {
		c.shownMissing(newName)
	}
	return errno
}

// shownMissing is called when a create or rename that must not replace
// newName failed with EEXIST. The kernel answers those itself when it
// holds an entry for the name, so it asked because it holds the name as
// missing: a negative entry from before another process (PHP, the CLI)
// stored the record, which the watcher has not invalidated yet. Queue that
// invalidation now, so that the caller's next look at the name (mv stats
// the target after EEXIST) finds the record rather than the stale absence.
// (Queued, not sent here: the kernel holds the directory locked until this
// request is answered.)
func (c *collectionNode) shownMissing(name string) {
	c.m.notify(func() { c.NotifyEntry(name) })
}

func (c *collectionNode) rename(name string, newParent gofs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if c.m.readOnly {
		return syscall.EROFS
	}
	if flags&unix.RENAME_EXCHANGE != 0 {
		return syscall.EINVAL
	}
	if isHiddenView(name) || isHiddenView(newName) {
		return syscall.EROFS // a scratch file must not shadow a view
	}
	if dst, ok := newParent.(*collectionNode); !ok || dst != c {
		return syscall.EXDEV
	}
	if c.isRemoved() {
		return syscall.ENOENT
	}
	noReplace := flags&unix.RENAME_NOREPLACE != 0
	sf := c.scratchFile(name)
	if sf == nil {
		if id, ok := recordID(name); ok {
			if isScratchName(newName) {
				return c.copyToScratch(id, name, newName, noReplace)
			}
			c.m.refusals.report("rename %s -> %s refused: a record keeps its name", childRel(c.rel, name), newName)
			return syscall.EPERM
		}
		return syscall.ENOENT
	}
	if id, ok := recordID(newName); ok {
		return c.commitScratch(sf, name, id, newName, noReplace)
	}
	if !isScratchName(newName) {
		c.m.refusals.report("rename %s -> %s refused: not a record name nor a known temporary name", childRel(c.rel, name), newName)
		return syscall.EPERM
	}
	c.mu.Lock()
	replaced, exists := c.scratch[newName]
	if exists && noReplace {
		c.mu.Unlock()
		return syscall.EEXIST
	}
	delete(c.scratch, name)
	c.scratch[newName] = sf
	c.mu.Unlock()
	if exists && replaced != sf {
		replaced.unname()
	}
	return 0
}

// copyToScratch answers a rename of record id (shown as name) onto the
// scratch name newName: newName becomes a scratch file holding the stored
// record's content and times, and the record stays as it is. Emacs renames
// a file to name~ as its backup and then writes a new file under the old
// name, which then replaces the record; nothing is lost in between.
//
// The kernel moves its entry of name to newName once the rename succeeds,
// so both names are invalidated (after this request: the kernel holds the
// directory locked until then), and the next lookups see the copy under
// newName and the record under name.
func (c *collectionNode) copyToScratch(id, name, newName string, noReplace bool) syscall.Errno {
	s, errno := c.store()
	if errno != 0 {
		return errno
	}
	f, err := s.OpenRecord(id)
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	sf := newScratchFile(scratchInoBase|c.m.scratchSeq.Add(1), c.m.budget)
	if errno := sf.data.setFrom(f); errno != 0 {
		sf.data.free()
		return errno
	}
	sf.mtime = fi.ModTime()
	c.mu.Lock()
	replaced, exists := c.scratch[newName]
	if exists && noReplace {
		c.mu.Unlock()
		sf.data.free()
		return syscall.EEXIST
	}
	if c.scratch == nil {
		c.scratch = map[string]*scratchFile{}
	}
	c.scratch[newName] = sf
	c.mu.Unlock()
	if exists {
		replaced.unname()
	}
	c.m.notify(func() {
		c.NotifyEntry(newName)
		c.NotifyEntry(name)
	})
	return 0
}
