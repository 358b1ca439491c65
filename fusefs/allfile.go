package fusefs

import (
	"context"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// allFile is COLL/.all.ndjson: the collection as `storhfs export` writes
// it (one canonical line per record, id order), produced while it is read
// (exportstream.go), never held whole.
//
// On a read-write mount every open gets its own export, read with direct
// I/O: the kernel keeps no pages, and the file reports size 0, as /proc
// files do (read to the end; `wc -c` and `stat` show 0).
//
// A read-only mount answers no OPEN (rawfs.go): the kernel reads through
// its page cache and stops at the size it holds, so the size must be the
// export's. A node is one version of the collection: its size is measured
// by one export pass at lookup, and the name gets a new node (same inode
// number, next generation) once the collection changed (viewCurrent), so
// pages of an old version are never served for the new one. Lookups are
// not cached: each open checks.
type allFile struct {
	fs.Inode
	c     *collectionNode
	sized bool      // read-only mount: size is the export's length at state
	size  int64     //
	state viewState // when the node was made (its mtime)
	pool  *exportPool
}

var (
	_ fs.NodeGetattrer   = (*allFile)(nil)
	_ fs.NodeSetattrer   = (*allFile)(nil)
	_ fs.NodeOpener      = (*allFile)(nil)
	_ fs.NodeReader      = (*allFile)(nil)
	_ fs.NodeOnForgetter = (*allFile)(nil)
)

// exporter returns the collection's exporter; ENOENT when the store has
// none.
func (c *collectionNode) exporter() (Exporter, syscall.Errno) {
	s, errno := c.store()
	if errno != 0 {
		return nil, errno
	}
	exp, ok := s.(Exporter)
	if !ok {
		return nil, syscall.ENOENT
	}
	return exp, 0
}

func (c *collectionNode) lookupAllFile(ctx context.Context, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	exp, errno := c.exporter()
	if errno != 0 {
		return nil, errno
	}
	out.SetEntryTimeout(volatileTimeout)
	if child := c.GetChild(allFileName); child != nil {
		if a, ok := child.Operations().(*allFile); ok && (!a.sized || c.viewCurrent(a.state, time.Now(), false)) {
			a.attr(&out.Attr)
			return child, 0
		}
	}
	node := &allFile{c: c, state: c.newViewState(), pool: &exportPool{exp: exp}}
	if c.m.noOpen {
		node.sized = true
		if known, ok := c.m.exportSizes.get(c.rel); ok && c.viewCurrent(known.state, time.Now(), false) {
			node.size, node.state = known.size, known.state
		} else {
			size, err := exportSize(exp)
			if err != nil {
				return nil, c.viewErrno("export", err)
			}
			node.size = size
			c.m.exportSizes.set(c.rel, measuredExport{size: size, state: node.state})
		}
	}
	node.attr(&out.Attr)
	return c.NewInode(ctx, node, fs.StableAttr{Mode: syscall.S_IFREG,
		Ino: viewIno(childRel(c.rel, allFileName)), Gen: c.m.viewGen.Add(1)}), 0
}

func (a *allFile) attr(out *fuse.Attr) {
	mtime := a.state.at
	if !a.sized {
		mtime = time.Now()
	}
	setMemAttr(out, int(a.size), mtime, roFilePerm)
}

func (a *allFile) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	a.attr(&out.Attr)
	return 0
}

func (a *allFile) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EROFS
}

// Open (read-write mounts): a handle with its own export, direct I/O.
func (a *allFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if changesContent(flags) {
		return nil, 0, syscall.EROFS
	}
	return &allHandle{node: a, pool: &exportPool{exp: a.pool.exp}}, fuse.FOPEN_DIRECT_IO | fuse.FOPEN_NOFLUSH, 0
}

// Read serves a READ through its handle or, without one (read-only
// mounts), through the node's streams.
func (a *allFile) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	pool := a.pool
	if h, ok := f.(*allHandle); ok {
		pool = h.pool
	}
	return a.read(pool, dest, off)
}

func (a *allFile) read(pool *exportPool, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if a.sized {
		if off >= a.size {
			return fuse.ReadResultData(nil), 0
		}
		dest = dest[:min(int64(len(dest)), a.size-off)]
	}
	n, err := pool.read(dest, off)
	if err != nil {
		return nil, a.c.viewErrno("export", err)
	}
	return fuse.ReadResultData(dest[:n]), 0
}

// OnForget ends the node's streams: no file is open on it any more. A
// lookup racing with the kernel's FORGET may still revive the node, so
// its reads must keep working: they start a new stream.
func (a *allFile) OnForget() { a.pool.drop() }

// exportSizes remembers each collection's last measured export size, so
// that a node made after the kernel forgot the last one (memory pressure,
// drop_caches) needs no pass while the collection is unchanged.
type exportSizes struct {
	mu    sync.Mutex
	byRel map[string]measuredExport
}

type measuredExport struct {
	size  int64
	state viewState // when it was measured
}

func (e *exportSizes) get(rel string) (measuredExport, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, ok := e.byRel[rel]
	return m, ok
}

func (e *exportSizes) set(rel string, m measuredExport) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.byRel == nil {
		e.byRel = map[string]measuredExport{}
	}
	e.byRel[rel] = m
}

// allHandle is one open of .all.ndjson on a read-write mount.
type allHandle struct {
	node *allFile
	pool *exportPool
}

var (
	_ fs.FileReader   = (*allHandle)(nil)
	_ fs.FileReleaser = (*allHandle)(nil)
)

func (h *allHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return h.node.read(h.pool, dest, off)
}

func (h *allHandle) Release(ctx context.Context) syscall.Errno {
	h.pool.close()
	return 0
}
