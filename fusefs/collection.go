package fusefs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// collectionNode is a DocStore collection shown as one flat directory:
// every record as <id>.jsonc in id order, then the scratch files (editor
// and tool temporaries, kept in memory only). Records are created by
// writing and closing <id>.jsonc or by renaming a scratch file onto it.
type collectionNode struct {
	gofs.Inode
	m   *mountState
	rel string

	// commitMu serialises this mount's mutations of the collection: the
	// store's flock is re-entrant within one process and so does not
	// exclude our own goroutines. Lock order: writeHandle.mu or
	// scratchFile.mu, then commitMu, then mu.
	commitMu sync.Mutex

	mu      sync.Mutex
	scratch map[string]*scratchFile          // by name
	writers map[string]map[*writeHandle]bool // open, not orphaned, write handles by record id
	removed bool                             // rmdir succeeded: every operation fails with ENOENT

	listing recordListing // the last listing, and the kernel's cache of it (dircache.go)

	// mutations counts this mount's changes to stored records (puts,
	// deletes, times), bumped after each: a stat taken ahead by a listing
	// is used only if the count has not moved since (statahead.go).
	mutations atomic.Uint64
}

var (
	_ gofs.NodeGetattrer      = (*collectionNode)(nil)
	_ gofs.NodeSetattrer      = (*collectionNode)(nil)
	_ gofs.NodeLookuper       = (*collectionNode)(nil)
	_ gofs.NodeOpendirHandler = (*collectionNode)(nil)
	_ gofs.NodeCreater        = (*collectionNode)(nil)
	_ gofs.NodeUnlinker       = (*collectionNode)(nil)
	_ gofs.NodeRenamer        = (*collectionNode)(nil)
	_ gofs.NodeMkdirer        = (*collectionNode)(nil)
	_ gofs.NodeRmdirer        = (*collectionNode)(nil)
)

func (c *collectionNode) store() (RecordStore, syscall.Errno) {
	if c.isRemoved() {
		return nil, syscall.ENOENT
	}
	s, err := c.m.store(c.rel)
	if err != nil {
		c.m.log.Printf("open collection %s: %v", c.rel, err)
		return nil, errnoOf(err, syscall.EIO)
	}
	return s, 0
}

func (c *collectionNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	fi, err := c.m.catalog.Stat(c.rel)
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	SetAttrFromInfo(&out.Attr, fi, c.m.dirPerm())
	return 0
}

// Setattr on the directory (touch, chmod) is accepted and ignored.
func (c *collectionNode) Setattr(ctx context.Context, f gofs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if c.m.readOnly {
		return syscall.EROFS
	}
	return c.Getattr(ctx, f, out)
}

func (c *collectionNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if errno := nameErrno(name); errno != 0 {
		return nil, errno
	}
	if id, ok := recordID(name); ok {
		if errno := c.lookupRecord(id, out, nil); errno != 0 {
			return nil, errno
		}
		return c.recordInode(ctx, name, id), 0
	}
	if sf := c.scratchFile(name); sf != nil {
		sf.attr(&out.Attr, c.m.filePerm())
		return c.scratchInode(ctx, sf), 0
	}
	if c.rel == "" && name == controlDirName { // ROOT is this collection
		return c.m.controlDir(ctx, &c.Inode, out), 0
	}
	return nil, syscall.ENOENT
}

// lookupRecord describes record id for a lookup, and counts the lookup for
// the listing cache (dircache.go). pre is the stored file's stat when a
// listing took it ahead (statahead.go), else nil.
func (c *collectionNode) lookupRecord(id string, out *fuse.EntryOut, pre *recordStat) syscall.Errno {
	if errno := c.recordEntry(id, out, pre); errno != 0 {
		return errno
	}
	c.listing.lookedUp()
	return 0
}

func (c *collectionNode) OpendirHandle(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	s, errno := c.store()
	if errno != 0 {
		return nil, 0, errno
	}
	return c.openDir(s)
}

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
		if errno != 0 {
			return nil, nil, 0, errno
		}
		node := c.recordInode(ctx, name, id)
		if errno := c.recordEntry(id, out, nil); errno != 0 {
			h.Release(ctx)
			return nil, nil, 0, errno
		}
		return node, h, fuse.FOPEN_DIRECT_IO, 0
	}
	if isScratchName(name) {
		sf, errno := c.createScratch(name, flags)
		if errno != 0 {
			return nil, nil, 0, errno
		}
		sf.attr(&out.Attr, c.m.filePerm())
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
	exists := err == nil || len(c.writers[id]) > 0
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
// directory's lock are answered by other goroutines meanwhile. It runs
// through m.notify, outside this request, and is waited for until ctx
// ends (the request was interrupted, or the mount is going away).
func (c *collectionNode) dropName(ctx context.Context, name string) {
	done := make(chan struct{})
	c.m.notify(func() {
		defer close(done)
		c.NotifyEntry(name)
	})
	select {
	case <-done:
	case <-ctx.Done():
	}
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
	return n
}

// Rename moves scratch files. A scratch file renamed onto a record name is
// the atomic replace: its content is committed as that record, and the
// scratch file stops existing. Records themselves are never renamed: that
// would change their identity. A record renamed onto a scratch name (emacs'
// backup by rename, JetBrains' ___jb_old___) is copied there instead and
// stays (copyToScratch).
func (c *collectionNode) Rename(ctx context.Context, name string, newParent gofs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if c.m.readOnly {
		return syscall.EROFS
	}
	if flags&unix.RENAME_EXCHANGE != 0 {
		return syscall.EINVAL
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
	if noReplace && c.hasWriters(id) {
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
// failure the stored record is untouched, and err says why (nil when the
// collection was removed: ENOENT); the caller reports it.
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

func (c *collectionNode) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if c.m.readOnly {
		return nil, syscall.EROFS
	}
	return nil, syscall.EPERM
}

func (c *collectionNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	if c.m.readOnly {
		return syscall.EROFS
	}
	return syscall.ENOTDIR
}

// recordAttr describes record id: an open write buffer holding changes not
// yet committed wins (what a writer sees before close), else the stored
// file, re-read each time so outside changes show up once the kernel's 1 s
// attribute cache expires, else the buffer of a handle that created the
// record and is still open (for a lookup, only while it names the record:
// handleView.named). volatile reports the buffer cases: the kernel must
// not cache those attributes, since the buffer may never be stored.
// pre, when not nil, is the stored file's stat, taken ahead by a listing.
func (c *collectionNode) recordAttr(id string, out *fuse.Attr, pre *recordStat, lookup bool) (volatile bool, errno syscall.Errno) {
	if size, ok := c.pendingSize(id); ok {
		setMemAttr(out, size, time.Now(), c.m.filePerm())
		return true, 0
	}
	s, errno := c.store()
	if errno != 0 {
		return false, errno
	}
	var fi os.FileInfo
	var err error
	if pre != nil {
		fi, err = pre.fi, pre.err
	} else {
		fi, err = s.StatRecord(id)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if h := c.createdWriter(id); h != nil {
			if v := h.shown(); !lookup || v.named() {
				setMemAttr(out, v.size, time.Now(), c.m.filePerm())
				return true, 0
			}
		}
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !c.m.symlinks.note(err) {
			c.m.log.Printf("stat %s/%s: %v", c.rel, id, err)
		}
		return false, errnoOf(err, syscall.EIO)
	}
	SetAttrFromInfo(out, fi, c.m.filePerm())
	return false, 0
}

// volatileTimeout is the attribute lifetime of uncommitted content: zero
// would mean "the mount's default", so use the smallest non-zero value.
const volatileTimeout = time.Nanosecond

// recordEntry describes record id for a lookup or create. Uncommitted
// content also gets a short-lived name: a new record that is never stored
// must vanish from the kernel's cache once its last writer is gone.
//
// A stored record of a collection the watcher fully covers is cached for
// the long timeout: the watcher invalidates it when it changes, and the
// mount's own changes invalidate it themselves.
func (c *collectionNode) recordEntry(id string, out *fuse.EntryOut, pre *recordStat) syscall.Errno {
	volatile, errno := c.recordAttr(id, &out.Attr, pre, true)
	switch long := c.m.coverage.cacheTimeout(c.rel); {
	case volatile:
		out.SetAttrTimeout(volatileTimeout)
		out.SetEntryTimeout(volatileTimeout)
	case errno == 0 && long > 0:
		out.SetAttrTimeout(long)
		out.SetEntryTimeout(long)
	}
	return errno
}

func (c *collectionNode) recordAttrOut(id string, out *fuse.AttrOut) syscall.Errno {
	volatile, errno := c.recordAttr(id, &out.Attr, nil, false)
	if volatile {
		out.SetTimeout(volatileTimeout)
	}
	return errno
}

// storedAttrOut is recordAttrOut for the record's own node, whose stored
// attributes are cached long like its entry (recordEntry).
func (c *collectionNode) storedAttrOut(id string, out *fuse.AttrOut) syscall.Errno {
	volatile, errno := c.recordAttr(id, &out.Attr, nil, false)
	switch long := c.m.coverage.cacheTimeout(c.rel); {
	case volatile:
		out.SetTimeout(volatileTimeout)
	case errno == 0 && long > 0:
		out.SetTimeout(long)
	}
	return errno
}

// recordInode is the inode of record id (file name): the one already in
// the tree when there is one (a lookup after the entry timeout), else a
// new one.
func (c *collectionNode) recordInode(ctx context.Context, name, id string) *gofs.Inode {
	if child := c.GetChild(name); child != nil {
		// A scratch node renamed onto the name is not reused. A record
		// node of this collection and id has its inode number: rel and
		// id are fixed for a node's life.
		if r, ok := child.Operations().(*recordNode); ok && r.c == c && r.id == id {
			return child
		}
	}
	return c.NewInode(ctx, &recordNode{c: c, id: id},
		gofs.StableAttr{Mode: syscall.S_IFREG, Ino: recordIno(c.rel, id)})
}

func (c *collectionNode) scratchInode(ctx context.Context, sf *scratchFile) *gofs.Inode {
	return c.NewInode(ctx, &scratchNode{c: c, f: sf},
		gofs.StableAttr{Mode: syscall.S_IFREG, Ino: sf.ino})
}

// registerWriterLocked publishes a fully initialised write handle (call
// under c.mu).
func (c *collectionNode) registerWriterLocked(h *writeHandle) *writeHandle {
	h.buf.budget = c.m.budget
	if c.writers == nil {
		c.writers = map[string]map[*writeHandle]bool{}
	}
	if c.writers[h.id] == nil {
		c.writers[h.id] = map[*writeHandle]bool{}
	}
	c.writers[h.id][h] = true
	return h
}

// openWriter registers a new write handle on the existing record id; trunc
// starts it empty and changed (open with O_TRUNC: the mount negotiates
// ATOMIC_O_TRUNC, so the flag arrives with the OPEN and the truncation
// belongs to this handle alone).
func (c *collectionNode) openWriter(id string, s RecordStore, trunc bool) *writeHandle {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.registerWriterLocked(&writeHandle{c: c, store: s, id: id, loaded: trunc, dirty: trunc})
}

func (c *collectionNode) releaseWriter(h *writeHandle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writers[h.id][h] {
		delete(c.writers[h.id], h)
		if len(c.writers[h.id]) == 0 {
			delete(c.writers, h.id)
		}
	}
}

// pendingSize returns the buffer size of an open write handle of id holding
// uncommitted changes that were not rejected.
func (c *collectionNode) pendingSize(id string) (int, bool) {
	for _, h := range c.openWriters(id) {
		if v := h.shown(); v.pending {
			return v.size, true
		}
	}
	return 0, false
}

// createdWriter returns an open handle that created record id and has not
// stored it.
func (c *collectionNode) createdWriter(id string) *writeHandle {
	for _, h := range c.openWriters(id) {
		if h.shown().created {
			return h
		}
	}
	return nil
}

// shownBuffer returns the content a reader of id sees while the store has
// no such record: a copy of a pending or created writer's buffer (nil when
// there is none).
func (c *collectionNode) shownBuffer(id string) (*memBuf, syscall.Errno) {
	for _, h := range c.openWriters(id) {
		if v := h.shown(); v.pending || v.created {
			return h.snapshot()
		}
	}
	return nil, 0
}

// openWriters returns the open write handles of id.
func (c *collectionNode) openWriters(id string) []*writeHandle {
	c.mu.Lock()
	defer c.mu.Unlock()
	handles := make([]*writeHandle, 0, len(c.writers[id]))
	for h := range c.writers[id] {
		handles = append(handles, h)
	}
	return handles
}

func (c *collectionNode) hasWriters(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.writers[id]) > 0
}

func (c *collectionNode) isRemoved() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.removed
}

func (c *collectionNode) scratchFile(name string) *scratchFile {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scratch[name]
}

// createScratch opens scratch file name for open(O_CREAT), making it when
// missing. (sf.mu is taken after c.mu is released: lock order.)
func (c *collectionNode) createScratch(name string, flags uint32) (*scratchFile, syscall.Errno) {
	sf, created, errno := c.scratchForCreate(name, flags)
	if errno == 0 && !created && flags&syscall.O_TRUNC != 0 {
		errno = sf.truncate(0)
	}
	return sf, errno
}

func (c *collectionNode) scratchForCreate(name string, flags uint32) (sf *scratchFile, created bool, errno syscall.Errno) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sf, ok := c.scratch[name]; ok {
		if flags&syscall.O_EXCL != 0 {
			return nil, false, syscall.EEXIST
		}
		return sf, false, 0
	}
	if c.scratch == nil {
		c.scratch = map[string]*scratchFile{}
	}
	sf = newScratchFile(scratchInoBase|c.m.scratchSeq.Add(1), c.m.budget)
	c.scratch[name] = sf
	return sf, true, 0
}

// scratchNames lists the scratch files, sorted (listed after the records).
func (c *collectionNode) scratchNames() []fuse.DirEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.scratch))
	for n := range c.scratch {
		names = append(names, n)
	}
	sort.Strings(names)
	list := make([]fuse.DirEntry, len(names))
	for i, n := range names {
		list[i] = fuse.DirEntry{Name: n, Mode: syscall.S_IFREG, Ino: c.scratch[n].ino}
	}
	return list
}
