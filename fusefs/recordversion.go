// A record node per stored version: how a read-write mount lets the kernel
// keep record pages across opens without ever serving an old version.

package fusefs

import (
	"context"
	"os"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// pagePolicy decides the FOPEN flags of h, a read-only handle of the stored
// record file f, opened through a node.
type pagePolicy interface {
	readFlags(m *mountState, h *readHandle, f *os.File) uint32
}

var (
	_ pagePolicy = (*pageCache)(nil)
	_ pagePolicy = (*recordNode)(nil)
)

func (p *pageCache) readFlags(m *mountState, h *readHandle, f *os.File) uint32 {
	return p.open(h, f, m.readOnly, time.Now(), cacheTimeout)
}

// The kernel keeps one page cache per node (nodeid). A record node stands
// for one stored version of the record (recordNode.version): a lookup that
// finds another stored file than the node it gave before gets a new node
// (recordInode), with the same inode number and a new generation, so the
// versions never share pages.
//
// Invariant: while a node is not retired, every page and every attribute
// the kernel holds for it came from its version. Pages come only through
// handles opened with KEEP_CACHE, which readFlags gives only when the
// opened file is the version (fstat: device, inode, size, mtime, ctime),
// and each such handle reads that file; direct I/O handles do not fill
// pages. Attributes come from lookup replies (the version's, by
// construction) and from GETATTR replies, which retire the node when they
// describe anything else. Whatever else may change the kernel's idea of
// the node (an open for writing: its writes, O_TRUNC; SETATTR; a buffer's
// size) retires it first.
//
// A retired node answers every later open with direct I/O, which reads the
// stored file as it is, and the kernel is told to forget its entry (and
// pages), so the next open looks the name up and gets a fresh node. Reads
// are right whether or not that notification has arrived yet: correctness
// never waits on an invalidation. The watcher and the mount's own commits
// invalidate the entry of a changed record as well, so the first open after
// a change normally finds the new node already.

// readFlags: KEEP_CACHE (and NOFLUSH: a read-only close has nothing to
// commit) while f is the node's version and the node was never retired;
// else direct I/O, and the node is retired.
func (r *recordNode) readFlags(m *mountState, h *readHandle, f *os.File) uint32 {
	if file, ok := storedFileOf(f); ok && file == r.version && !r.retired.Load() {
		return fuse.FOPEN_KEEP_CACHE | fuse.FOPEN_NOFLUSH
	}
	r.retire()
	return fuse.FOPEN_DIRECT_IO | fuse.FOPEN_NOFLUSH
}

// retire stops the node from keeping pages for good and has the kernel
// drop its attributes, pages and entry (once), so that the next open looks
// the name up again.
func (r *recordNode) retire() {
	if !r.retired.CompareAndSwap(false, true) {
		return
	}
	name := r.id + recordExt
	r.c.m.notify(func() {
		r.NotifyContent(0, 0)
		if r.c.GetChild(name) == r.EmbeddedInode() {
			r.c.NotifyEntry(name)
		}
	})
}

// standsFor reports whether the node may be given again for a lookup that
// found v: same version and never retired. A node of no version (a record
// being written) stands for any lookup that finds none, as it never keeps
// pages.
func (r *recordNode) standsFor(v storedFile) bool {
	if v == (storedFile{}) {
		return r.version == v
	}
	return r.version == v && !r.retired.Load()
}

// recordInode is the inode of record id (file name) as the stored version
// v (zero: none, a record being created or written), which lookupRecord
// returned: the node already in the tree when it stands for v, else a new
// node. With lookupRecord it is the one way to a record's node; a folder
// that shows records elsewhere gets them through both.
func (c *collectionNode) recordInode(ctx context.Context, name, id string, v storedFile) *gofs.Inode {
	if child := c.GetChild(name); child != nil {
		// A scratch node renamed onto the name is not reused. A record
		// node of this collection and id has its inode number: rel and
		// id are fixed for a node's life.
		if r, ok := child.Operations().(*recordNode); ok && r.c == c && r.id == id && r.standsFor(v) {
			return child
		}
	}
	// The generation tells the node apart from the record's other
	// versions in go-fuse's table (keyed by inode number and generation)
	// and gives the kernel a new node, so a new page cache.
	r := &recordNode{c: c, id: id, version: v}
	c.m.nodeCap.added(r)
	return c.NewInode(ctx, r,
		gofs.StableAttr{Mode: syscall.S_IFREG, Ino: recordIno(c.rel, id), Gen: c.m.recordGen.Add(1)})
}
