// Lookup and listing of a collection's entries: records and scratch files.

package fusefs

import (
	"context"
	"sort"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

func (c *collectionNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if errno := nameErrno(name); errno != 0 {
		return nil, errno
	}
	if id, ok := recordID(name); ok {
		v, errno := c.lookupRecord(id, out, nil)
		if errno != 0 {
			return nil, errno
		}
		return c.recordInode(ctx, name, id, v), 0
	}
	if sf := c.scratchFile(name); sf != nil {
		sf.attr(&out.Attr, c.m.filePerm())
		return c.scratchInode(ctx, sf), 0
	}
	if c.rel == "" && name == controlDirName { // ROOT is this collection
		return c.m.controlDir(ctx, &c.Inode, out), 0
	}
	if n, errno, ok := c.lookupHidden(ctx, name, out); ok { // .by, .all.ndjson (hidden.go)
		return n, errno
	}
	return nil, syscall.ENOENT
}

// lookupRecord describes record id for a lookup, and counts the lookup for
// the listing cache (dircache.go). pre is the stored file's stat when a
// listing took it ahead (statahead.go), else nil. It returns the stored
// version out describes, for recordInode (zero: a buffer's attributes).
func (c *collectionNode) lookupRecord(id string, out *fuse.EntryOut, pre *recordStat) (storedFile, syscall.Errno) {
	v, errno := c.recordEntry(id, out, pre)
	if errno != 0 {
		return storedFile{}, errno
	}
	c.listing.lookedUp()
	return v, 0
}

func (c *collectionNode) OpendirHandle(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	s, errno := c.store()
	if errno != 0 {
		return nil, 0, errno
	}
	return c.openDir(s)
}

func (c *collectionNode) scratchInode(ctx context.Context, sf *scratchFile) *gofs.Inode {
	return c.NewInode(ctx, &scratchNode{c: c, f: sf},
		gofs.StableAttr{Mode: syscall.S_IFREG, Ino: sf.ino})
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
