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
// promoted: its content was committed as that record, and the node the
// kernel may still hold forwards to the record.
type scratchFile struct {
	ino uint64

	mu       sync.Mutex
	data     []byte
	mtime    time.Time
	atime    time.Time
	setTimes bool   // times were set explicitly (touch, rsync -t)
	promoted string // record id after a rename onto a record name
}

func newScratchFile(ino uint64) *scratchFile {
	now := time.Now()
	return &scratchFile{ino: ino, mtime: now, atime: now}
}

func (f *scratchFile) attr(out *fuse.Attr, perm uint32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	setMemAttr(out, len(f.data), f.mtime, perm)
	out.SetTimes(&f.atime, &f.mtime, &f.mtime)
}

func (f *scratchFile) truncate(size int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.data = resize(f.data, size)
	f.mtime = time.Now()
}

// snapshot returns a copy of the content and the explicitly set times.
func (f *scratchFile) snapshot() ([]byte, *fileTimes) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var t *fileTimes
	if f.setTimes {
		t = &fileTimes{atime: f.atime, mtime: f.mtime}
	}
	return append([]byte(nil), f.data...), t
}

func (f *scratchFile) promote(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.promoted = id
	f.data = nil
}

func (f *scratchFile) promotedID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.promoted
}

// scratchNode is the node of a scratch file.
type scratchNode struct {
	fs.Inode
	c *collectionNode
	f *scratchFile
}

var (
	_ fs.NodeGetattrer = (*scratchNode)(nil)
	_ fs.NodeSetattrer = (*scratchNode)(nil)
	_ fs.NodeOpener    = (*scratchNode)(nil)
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
		return n.c.openRecord(id, flags)
	}
	if flags&syscall.O_TRUNC != 0 {
		n.f.truncate(0)
	}
	return &scratchHandle{f: n.f}, fuse.FOPEN_DIRECT_IO, 0
}

func (n *scratchNode) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if id := n.f.promotedID(); id != "" {
		return n.c.setRecordAttr(id, fh, in, out)
	}
	if size, ok := in.GetSize(); ok {
		if size > maxFileSize {
			return syscall.EFBIG
		}
		n.f.truncate(int(size))
	}
	if t, ok := timesOf(in); ok {
		n.f.mu.Lock()
		n.f.atime, n.f.mtime, n.f.setTimes = t.atime, t.mtime, true
		n.f.mu.Unlock()
	}
	n.f.attr(&out.Attr, n.c.m.filePerm())
	return 0
}

// scratchHandle reads and writes a scratch file's memory directly.
type scratchHandle struct {
	f *scratchFile
}

var (
	_ fs.FileReader  = (*scratchHandle)(nil)
	_ fs.FileWriter  = (*scratchHandle)(nil)
	_ fs.FileFlusher = (*scratchHandle)(nil)
	_ fs.FileFsyncer = (*scratchHandle)(nil)
)

func (h *scratchHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	return fuse.ReadResultData(sliceAt(h.f.data, dest, off)), 0
}

func (h *scratchHandle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	buf, errno := writeAt(h.f.data, data, off)
	if errno != 0 {
		return 0, errno
	}
	h.f.data, h.f.mtime, h.f.setTimes = buf, time.Now(), false
	return uint32(len(data)), 0
}

func (h *scratchHandle) Flush(ctx context.Context) syscall.Errno               { return 0 }
func (h *scratchHandle) Fsync(ctx context.Context, flags uint32) syscall.Errno { return 0 }
