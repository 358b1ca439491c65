package fusefs

import (
	"context"
	"errors"
	"io/fs"
	"sort"
	"sync"
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
	// exclude our own goroutines.
	commitMu sync.Mutex

	mu      sync.Mutex
	scratch map[string]*scratchFile          // by name
	writers map[string]map[*writeHandle]bool // open write handles by record id
	nextIno uint64                           // scratch inode counter
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

// maxFileSize bounds one in-memory file (write buffer or scratch file).
const maxFileSize = 64 << 20

func (c *collectionNode) store() (RecordStore, syscall.Errno) {
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
	setAttrFromInfo(&out.Attr, fi, c.m.dirPerm())
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
	if id, ok := recordID(name); ok {
		if errno := c.recordEntry(id, out); errno != 0 {
			return nil, errno
		}
		return c.recordInode(ctx, id), 0
	}
	if sf := c.scratchFile(name); sf != nil {
		sf.attr(&out.Attr, c.m.filePerm())
		return c.scratchInode(ctx, sf), 0
	}
	return nil, syscall.ENOENT
}

func (c *collectionNode) OpendirHandle(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	s, errno := c.store()
	if errno != 0 {
		return nil, 0, errno
	}
	return &collectionDirHandle{c: c, store: s}, 0, 0
}

// Create opens a new record (committed on close) or scratch file; any
// other name is refused with EPERM.
func (c *collectionNode) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	if c.m.readOnly {
		return nil, nil, 0, syscall.EROFS
	}
	if id, ok := recordID(name); ok {
		s, errno := c.store()
		if errno != 0 {
			return nil, nil, 0, errno
		}
		_, err := s.StatRecord(id)
		exists := err == nil
		if exists && flags&syscall.O_EXCL != 0 {
			return nil, nil, 0, syscall.EEXIST
		}
		node := c.recordInode(ctx, id)
		h := c.openWriter(id, s, flags&syscall.O_TRUNC != 0 || !exists)
		// A created record must be committed even when nothing is
		// written, so that `touch new.jsonc` fails instead of leaving
		// a name that is not stored.
		h.dirty = !exists
		if errno := c.recordEntry(id, out); errno != 0 {
			c.releaseWriter(h)
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
		return c.scratchInode(ctx, sf), &scratchHandle{f: sf}, fuse.FOPEN_DIRECT_IO, 0
	}
	c.m.log.Printf("create %s/%s refused: not a record name (<uuidv7>.jsonc) nor a known temporary name", c.rel, name)
	return nil, nil, 0, syscall.EPERM
}

// Unlink deletes a record with its index entries, or drops a scratch file.
func (c *collectionNode) Unlink(ctx context.Context, name string) syscall.Errno {
	if c.m.readOnly {
		return syscall.EROFS
	}
	if id, ok := recordID(name); ok {
		s, errno := c.store()
		if errno != 0 {
			return errno
		}
		c.commitMu.Lock()
		defer c.commitMu.Unlock()
		if _, err := s.StatRecord(id); err != nil {
			return errnoOf(err, syscall.EIO)
		}
		if err := s.Delete(id); err != nil {
			c.m.log.Printf("delete %s/%s: %v", c.rel, id, err)
			return errnoOf(err, syscall.EIO)
		}
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.scratch[name]; ok {
		delete(c.scratch, name)
		return 0
	}
	return syscall.ENOENT
}

// Rename moves scratch files. A scratch file renamed onto a record name is
// the atomic replace: its content is committed as that record, and the
// scratch file stops existing. Records themselves are never renamed: that
// would change their identity.
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
	sf := c.scratchFile(name)
	if sf == nil {
		if _, ok := recordID(name); ok {
			c.m.log.Printf("rename %s/%s -> %s refused: a record keeps its name", c.rel, name, newName)
			return syscall.EPERM
		}
		return syscall.ENOENT
	}
	noReplace := flags&unix.RENAME_NOREPLACE != 0
	if id, ok := recordID(newName); ok {
		return c.commitScratch(sf, name, id, newName, noReplace)
	}
	if !isScratchName(newName) {
		c.m.log.Printf("rename %s/%s -> %s refused: not a record name nor a known temporary name", c.rel, name, newName)
		return syscall.EPERM
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, exists := c.scratch[newName]; exists && noReplace {
		return syscall.EEXIST
	}
	delete(c.scratch, name)
	c.scratch[newName] = sf
	return 0
}

// commitScratch stores sf's content as record id and retires the scratch
// name. The kernel's dentry for newName then points at the scratch inode,
// which forwards to the record until the entry is invalidated.
func (c *collectionNode) commitScratch(sf *scratchFile, name, id, newName string, noReplace bool) syscall.Errno {
	s, errno := c.store()
	if errno != 0 {
		return errno
	}
	if noReplace {
		if _, err := s.StatRecord(id); err == nil {
			return syscall.EEXIST
		}
	}
	content, times := sf.snapshot()
	if errno := c.put(s, id, content, times); errno != 0 {
		return errno
	}
	sf.promote(id)
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

// put commits content as record id, then applies explicit times (cp -p,
// rsync -t). On failure the stored record is untouched and the reason logged.
func (c *collectionNode) put(s RecordStore, id string, content []byte, times *fileTimes) syscall.Errno {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	if err := s.PutRaw(id, content); err != nil {
		c.m.log.Printf("commit %s/%s%s rejected: %v", c.rel, id, recordExt, err)
		return errnoOf(err, syscall.EINVAL)
	}
	if times != nil {
		if err := s.SetRecordTimes(id, times.atime, times.mtime); err != nil {
			c.m.log.Printf("set times of %s/%s: %v", c.rel, id, err)
		}
	}
	return 0
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
// attribute cache expires. volatile reports the first case: the kernel
// must not cache those attributes, since the buffer may never be stored.
func (c *collectionNode) recordAttr(id string, out *fuse.Attr) (volatile bool, errno syscall.Errno) {
	if size, ok := c.dirtySize(id); ok {
		setMemAttr(out, size, time.Now(), c.m.filePerm())
		return true, 0
	}
	s, errno := c.store()
	if errno != 0 {
		return false, errno
	}
	fi, err := s.StatRecord(id)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.m.log.Printf("stat %s/%s: %v", c.rel, id, err)
		}
		return false, errnoOf(err, syscall.EIO)
	}
	setAttrFromInfo(out, fi, c.m.filePerm())
	return false, 0
}

// volatileTimeout is the attribute lifetime of uncommitted content: zero
// would mean "the mount's default", so use the smallest non-zero value.
const volatileTimeout = time.Nanosecond

func (c *collectionNode) recordEntry(id string, out *fuse.EntryOut) syscall.Errno {
	volatile, errno := c.recordAttr(id, &out.Attr)
	if volatile {
		out.SetAttrTimeout(volatileTimeout)
	}
	return errno
}

func (c *collectionNode) recordAttrOut(id string, out *fuse.AttrOut) syscall.Errno {
	volatile, errno := c.recordAttr(id, &out.Attr)
	if volatile {
		out.SetTimeout(volatileTimeout)
	}
	return errno
}

func (c *collectionNode) recordInode(ctx context.Context, id string) *gofs.Inode {
	return c.NewInode(ctx, &recordNode{c: c, id: id},
		gofs.StableAttr{Mode: syscall.S_IFREG, Ino: recordIno(c.rel, id)})
}

func (c *collectionNode) scratchInode(ctx context.Context, sf *scratchFile) *gofs.Inode {
	return c.NewInode(ctx, &scratchNode{c: c, f: sf},
		gofs.StableAttr{Mode: syscall.S_IFREG, Ino: sf.ino})
}

// openWriter registers a new write handle on record id.
func (c *collectionNode) openWriter(id string, s RecordStore, empty bool) *writeHandle {
	h := &writeHandle{c: c, store: s, id: id, loaded: empty}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writers == nil {
		c.writers = map[string]map[*writeHandle]bool{}
	}
	if c.writers[id] == nil {
		c.writers[id] = map[*writeHandle]bool{}
	}
	c.writers[id][h] = true
	return h
}

func (c *collectionNode) releaseWriter(h *writeHandle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.writers[h.id], h)
	if len(c.writers[h.id]) == 0 {
		delete(c.writers, h.id)
	}
}

// dirtySize returns the buffer size of an open write handle of id holding
// uncommitted changes.
func (c *collectionNode) dirtySize(id string) (int, bool) {
	if h := c.dirtyWriter(id); h != nil {
		return h.pending()
	}
	return 0, false
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

// dirtyWriter returns an open write handle of id with uncommitted changes.
func (c *collectionNode) dirtyWriter(id string) *writeHandle {
	for _, h := range c.openWriters(id) {
		if _, dirty := h.pending(); dirty {
			return h
		}
	}
	return nil
}

func (c *collectionNode) scratchFile(name string) *scratchFile {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scratch[name]
}

func (c *collectionNode) createScratch(name string, flags uint32) (*scratchFile, syscall.Errno) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sf, ok := c.scratch[name]; ok {
		if flags&syscall.O_EXCL != 0 {
			return nil, syscall.EEXIST
		}
		if flags&syscall.O_TRUNC != 0 {
			sf.truncate(0)
		}
		return sf, 0
	}
	if c.scratch == nil {
		c.scratch = map[string]*scratchFile{}
	}
	c.nextIno++
	sf := newScratchFile(scratchInoBase | dirIno(c.rel)&0xffffffff<<24 | c.nextIno&0xffffff)
	c.scratch[name] = sf
	return sf, 0
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
