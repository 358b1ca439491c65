package fusefs

import (
	"context"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// scratchFile is an editor or tool temporary (vim 4913, .x.swp, x~, sed
// temps, rsync .x.XXXXXX, ...). It lives in memory for the life of the
// mount and is never persisted. Once renamed onto a record name it is
// promoted: its content was committed as that record, and the node and
// descriptors the kernel may still hold forward to the record. Its memory
// is returned to the mount's budget once it has neither a name nor an open
// descriptor, or when it is promoted.
type scratchFile struct {
	ino uint64

	mu       sync.Mutex
	data     memBuf
	mtime    time.Time
	atime    time.Time
	setTimes bool   // times were set explicitly (touch, rsync -t)
	promoted string // record id after a rename onto a record name
	unnamed  bool   // unlinked or replaced by a rename
	opens    int    // open descriptors (scratchHandle)
}

func newScratchFile(ino uint64, budget *memBudget) *scratchFile {
	now := time.Now()
	return &scratchFile{ino: ino, mtime: now, atime: now, data: memBuf{budget: budget}}
}

func (f *scratchFile) attr(out *fuse.Attr, perm uint32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	setMemAttr(out, f.data.size(), f.mtime, perm)
	out.SetTimes(&f.atime, &f.mtime, &f.mtime)
}

func (f *scratchFile) truncate(size int) syscall.Errno {
	f.mu.Lock()
	defer f.mu.Unlock()
	if errno := f.data.resize(size); errno != 0 {
		return errno
	}
	f.mtime = time.Now()
	return 0
}

func (f *scratchFile) promotedID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.promoted
}

// unname records that the file lost its name (unlink, or replaced by a
// rename); its memory goes once the last descriptor is closed.
func (f *scratchFile) unname() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unnamed = true
	f.freeIfUnusedLocked()
}

func (f *scratchFile) opened() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opens++
}

func (f *scratchFile) closed() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opens--
	f.freeIfUnusedLocked()
}

func (f *scratchFile) freeIfUnusedLocked() {
	if f.unnamed && f.opens == 0 {
		f.data.free()
	}
}

// scratchNode is the node of a scratch file.
type scratchNode struct {
	fs.Inode
	c     *collectionNode
	f     *scratchFile
	pages pageCache // once promoted: what the kernel's pages of this node hold
}

var (
	_ fs.NodeGetattrer = (*scratchNode)(nil)
	_ fs.NodeSetattrer = (*scratchNode)(nil)
	_ fs.NodeOpener    = (*scratchNode)(nil)
	_ fs.NodeReader    = (*scratchNode)(nil)
	_ fs.NodeWriter    = (*scratchNode)(nil)
	_ fs.NodeFlusher   = (*scratchNode)(nil)
	_ fs.NodeFsyncer   = (*scratchNode)(nil)
)

func (n *scratchNode) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if id := n.f.promotedID(); id != "" {
		return n.c.recordAttrOut(id, out)
	}
	n.f.attr(&out.Attr, n.c.m.filePerm())
	return 0
}

func (n *scratchNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if id := n.f.promotedID(); id != "" {
		return n.c.openRecord(id, flags, &n.pages)
	}
	if flags&syscall.O_TRUNC != 0 {
		if errno := n.f.truncate(0); errno != 0 {
			return nil, 0, errno
		}
	}
	return n.c.openScratch(n.f), fuse.FOPEN_DIRECT_IO, 0
}

func (n *scratchNode) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if id := n.f.promotedID(); id != "" {
		return n.c.setRecordAttr(ctx, n.EmbeddedInode(), id, fh, in, out)
	}
	if size, ok := in.GetSize(); ok {
		if size > maxFileSize {
			return syscall.EFBIG
		}
		if errno := n.f.truncate(int(size)); errno != 0 {
			return errno
		}
	}
	if t, ok := timesOf(in); ok {
		n.f.mu.Lock()
		n.f.atime, n.f.mtime, n.f.setTimes = t.atime, t.mtime, true
		n.f.mu.Unlock()
	}
	n.f.attr(&out.Attr, n.c.m.filePerm())
	return 0
}

// Read, Write, Flush and Fsync go to the handle the open gave or, without
// one (nodewrites.go), to the file's memory, or once the file was promoted
// to a record, to the node's buffer of that record.
func (n *scratchNode) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if h, ok := fh.(fs.FileReader); ok {
		return h.Read(ctx, dest, off)
	}
	data, id, errno := n.f.readAt(dest, off)
	if id != "" {
		return n.c.readThrough(n.EmbeddedInode(), id, storedFile{}, dest, off)
	}
	return fuse.ReadResultData(data), errno
}

func (n *scratchNode) Write(ctx context.Context, fh fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	if h, ok := fh.(fs.FileWriter); ok {
		return h.Write(ctx, data, off)
	}
	written, id, errno := n.f.writeAt(data, off)
	if id != "" {
		return n.c.writeThrough(ctx, n.EmbeddedInode(), id, data, off)
	}
	return written, errno
}

func (n *scratchNode) Flush(ctx context.Context, fh fs.FileHandle) syscall.Errno {
	return n.c.flushThrough(ctx, n.EmbeddedInode(), fh)
}

func (n *scratchNode) Fsync(ctx context.Context, fh fs.FileHandle, flags uint32) syscall.Errno {
	return n.c.fsyncThrough(ctx, n.EmbeddedInode(), fh, flags)
}

// readAt reads the file's memory; once promoted it reads nothing and
// returns the record's id.
func (f *scratchFile) readAt(dest []byte, off int64) ([]byte, string, syscall.Errno) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.promoted != "" {
		return nil, f.promoted, 0
	}
	data, errno := f.data.readAt(dest, off)
	return data, "", errno
}

// writeAt writes the file's memory; once promoted it writes nothing and
// returns the record's id.
func (f *scratchFile) writeAt(data []byte, off int64) (uint32, string, syscall.Errno) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.promoted != "" {
		return 0, f.promoted, 0
	}
	if errno := f.data.writeAt(data, off); errno != 0 {
		return 0, "", errno
	}
	f.mtime, f.setTimes = time.Now(), false
	return uint32(len(data)), "", 0
}

// scratchHandle reads and writes a scratch file's memory directly. After
// the file was promoted (renamed onto a record name), reads, writes,
// truncations and flushes through this descriptor go to a write handle of
// that record, so they are committed like any write to the record.
type scratchHandle struct {
	c *collectionNode
	f *scratchFile

	mu     sync.Mutex
	record *writeHandle // opened on the first use after promotion
}

var (
	_ fs.FileReader   = (*scratchHandle)(nil)
	_ fs.FileWriter   = (*scratchHandle)(nil)
	_ fs.FileFlusher  = (*scratchHandle)(nil)
	_ fs.FileFsyncer  = (*scratchHandle)(nil)
	_ fs.FileReleaser = (*scratchHandle)(nil)
)

func (c *collectionNode) openScratch(sf *scratchFile) *scratchHandle {
	sf.opened()
	return &scratchHandle{c: c, f: sf}
}

// recordWriter returns the write handle this descriptor uses once the file
// was promoted to record id, opening it on first use.
func (h *scratchHandle) recordWriter(id string) (*writeHandle, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.record == nil {
		s, errno := h.c.store()
		if errno != 0 {
			return nil, errno
		}
		h.record = h.c.openWriter(id, s, false)
	}
	return h.record, 0
}

// existingRecordWriter is the write handle opened by recordWriter, if any.
func (h *scratchHandle) existingRecordWriter() *writeHandle {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.record
}

func (h *scratchHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	data, id, errno := h.f.readAt(dest, off)
	if id == "" {
		if errno != 0 {
			return nil, errno
		}
		return fuse.ReadResultData(data), 0
	}
	w, errno := h.recordWriter(id)
	if errno != 0 {
		return nil, errno
	}
	return w.Read(ctx, dest, off)
}

func (h *scratchHandle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	written, id, errno := h.f.writeAt(data, off)
	if id == "" {
		return written, errno
	}
	w, errno := h.recordWriter(id)
	if errno != 0 {
		return 0, errno
	}
	return w.Write(ctx, data, off)
}

func (h *scratchHandle) Flush(ctx context.Context) syscall.Errno {
	if w := h.existingRecordWriter(); w != nil {
		return w.commit()
	}
	return 0
}

func (h *scratchHandle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	return h.Flush(ctx)
}

func (h *scratchHandle) Release(ctx context.Context) syscall.Errno {
	if w := h.existingRecordWriter(); w != nil {
		w.Release(ctx)
	}
	h.f.closed()
	return 0
}
