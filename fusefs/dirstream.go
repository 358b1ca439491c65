package fusefs

import (
	"context"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// collectionDirHandle lists a collection as read at open: "." and "..",
// every record in id order, then the scratch files. Entry offsets are
// positions (1-based), so seeking is indexing.
type collectionDirHandle struct {
	c       *collectionNode
	dots    []fuse.DirEntry // "." and ".."
	list    dirListing
	pos     uint64     // entries returned so far, dots included
	release func()     // nil, or ends the handle's hold on the kernel cache
	ahead   *statAhead // started by the first READDIRPLUS lookup
}

var (
	_ fs.FileReaddirenter = (*collectionDirHandle)(nil)
	_ fs.FileSeekdirer    = (*collectionDirHandle)(nil)
	_ fs.FileReleasedirer = (*collectionDirHandle)(nil)
	_ fs.FileLookuper     = (*collectionDirHandle)(nil)
)

// openDir opens the listing of the collection: the ids come from the
// collection's recordListing, which says whether the kernel may be told to
// cache the listing.
func (c *collectionNode) openDir(s RecordStore) (fs.FileHandle, uint32, syscall.Errno) {
	list, err := c.listing.open(s.ListIDs, c.scratchNames(), time.Now(), c.m.coverage.cacheTimeout(c.rel) > 0)
	if err != nil {
		c.m.log.Printf("list %s: %v", c.rel, err)
		return nil, 0, errnoOf(err, syscall.EIO)
	}
	h := &collectionDirHandle{c: c, dots: dotEntries(&c.Inode), list: list}
	if !list.kernelCache {
		return h, 0, 0
	}
	h.release = func() { c.listing.done(list.gen) }
	return h, fuse.FOPEN_CACHE_DIR | fuse.FOPEN_KEEP_CACHE, 0
}

// Readdirent returns the next entry (go-fuse serialises calls per handle).
func (d *collectionDirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	nDots, nIDs := uint64(len(d.dots)), uint64(len(d.list.ids))
	var e fuse.DirEntry
	switch pos := d.pos; {
	case pos < nDots:
		e = d.dots[pos]
	case pos < nDots+nIDs:
		id := d.list.ids[pos-nDots]
		e = fuse.DirEntry{Name: id + recordExt, Mode: syscall.S_IFREG, Ino: recordIno(d.c.rel, id)}
	case pos < nDots+nIDs+uint64(len(d.list.scratch)):
		e = d.list.scratch[pos-nDots-nIDs]
	default:
		return nil, 0
	}
	d.pos++
	e.Off = d.pos
	return &e, 0
}

// idIndex is the index in list.ids of the entry Readdirent returned last,
// or -1 if that was no record.
func (d *collectionDirHandle) idIndex() int {
	i := int(d.pos) - 1 - len(d.dots)
	if i < 0 || i >= len(d.list.ids) {
		return -1
	}
	return i
}

// Lookup describes the entry Readdirent just returned, for READDIRPLUS.
// Records are stat-ed ahead of the kernel's requests (statahead.go); any
// other entry, or one the kernel asks for out of order, is looked up as
// usual.
func (d *collectionDirHandle) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	pos := d.idIndex()
	id, ok := recordID(name)
	if !ok || pos < 0 || d.list.ids[pos] != id {
		return d.c.Lookup(ctx, name, out)
	}
	if d.ahead == nil {
		s, errno := d.c.store()
		if errno != 0 {
			return nil, errno
		}
		d.ahead = startStatAhead(d.c, s, d.list.ids, pos)
	}
	v, errno := d.c.lookupRecord(id, out, d.ahead.take(pos))
	if errno != 0 {
		return nil, errno
	}
	return d.c.recordInode(ctx, name, id, v), 0
}

func (d *collectionDirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	d.pos = min(off, uint64(len(d.dots)+len(d.list.ids)+len(d.list.scratch)))
	d.stopStatAhead()
	return 0
}

func (d *collectionDirHandle) stopStatAhead() {
	if d.ahead != nil {
		d.ahead.stop()
		d.ahead = nil
	}
}

func (d *collectionDirHandle) Releasedir(ctx context.Context, releaseFlags uint32) {
	d.stopStatAhead()
	if d.release != nil {
		d.release()
		d.release = nil
	}
}

// dotEntries are the "." and ".." a listing starts with, as on any file
// system (ls -a, programs that skip the first two entries); go-fuse does
// not add them. The root's ".." is the root itself.
func dotEntries(n *fs.Inode) []fuse.DirEntry {
	parent := n
	if _, p := n.Parent(); p != nil {
		parent = p
	}
	return []fuse.DirEntry{
		{Name: ".", Mode: syscall.S_IFDIR, Ino: n.StableAttr().Ino},
		{Name: "..", Mode: syscall.S_IFDIR, Ino: parent.StableAttr().Ino},
	}
}

// listWithDots is a listing of entries after "." and "..".
func listWithDots(n *fs.Inode, entries []fuse.DirEntry) fs.DirStream {
	return fs.NewListDirStream(append(dotEntries(n), entries...))
}
