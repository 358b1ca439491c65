package fusefs

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/internal/fuseattr"
)

// dirNode is the storage root or a namespace: a plain folder whose shown
// children are namespaces and collections (Catalog.List). Its own files and
// storh metadata are not shown.
type dirNode struct {
	fs.Inode
	m   *mountState
	rel string
}

var (
	_ fs.NodeLookuper  = (*dirNode)(nil)
	_ fs.NodeReaddirer = (*dirNode)(nil)
	_ fs.NodeGetattrer = (*dirNode)(nil)
	_ fs.NodeMkdirer   = (*dirNode)(nil)
	_ fs.NodeRmdirer   = (*dirNode)(nil)
	_ fs.NodeCreater   = (*dirNode)(nil)
	_ fs.NodeUnlinker  = (*dirNode)(nil)
	_ fs.NodeRenamer   = (*dirNode)(nil)
)

func (d *dirNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	fi, err := d.m.catalog.Stat(d.rel)
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	fuseattr.FromInfo(&out.Attr, fi, d.m.dirPerm())
	return 0
}

func (d *dirNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	rel := childRel(d.rel, name)
	if errno := nameErrno(name); errno != 0 {
		return nil, errno
	}
	if isHidden(name) {
		return nil, syscall.ENOENT
	}
	return d.m.dirChild(ctx, &d.Inode, rel, d.m.catalog.Kind(rel), out)
}

func (d *dirNode) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	entries, err := d.m.catalog.List(d.rel)
	if err != nil {
		return nil, errnoOf(err, syscall.EIO)
	}
	list := make([]fuse.DirEntry, 0, len(entries))
	for _, e := range entries {
		list = append(list, fuse.DirEntry{Name: e.Name, Mode: syscall.S_IFDIR, Ino: dirIno(childRel(d.rel, e.Name))})
	}
	return listWithDots(&d.Inode, list), 0
}

// Mkdir creates an empty DocStore collection.
func (d *dirNode) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if d.m.readOnly {
		return nil, syscall.EROFS
	}
	if errno := nameErrno(name); errno != 0 {
		return nil, errno
	}
	if isHidden(name) {
		return nil, syscall.EINVAL
	}
	rel := childRel(d.rel, name)
	if _, err := d.m.catalog.Stat(rel); err == nil {
		return nil, syscall.EEXIST
	}
	if err := d.m.catalog.CreateDocStore(rel); err != nil {
		d.m.log.Printf("mkdir %s: %v", rel, err)
		return nil, errnoOf(err, syscall.EIO)
	}
	return d.m.dirChild(ctx, &d.Inode, rel, KindDocStore, out)
}

// Rmdir removes an empty collection; namespaces, logs and queues stay.
func (d *dirNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	if d.m.readOnly {
		return syscall.EROFS
	}
	rel := childRel(d.rel, name)
	switch d.m.catalog.Kind(rel) {
	case KindDocStore:
		return d.rmdirCollection(name, rel)
	case KindNamespace:
		return syscall.ENOTEMPTY
	case KindLog, KindQueue:
		return syscall.EPERM
	}
	return syscall.ENOENT
}

// rmdirCollection removes the empty collection rel shown as name.
func (d *dirNode) rmdirCollection(name, rel string) syscall.Errno {
	var c *collectionNode
	if child := d.GetChild(name); child != nil {
		c, _ = child.Operations().(*collectionNode)
	}
	return d.m.removeCollection(rel, c)
}

// removeCollection removes the empty collection rel, whose node c may be
// nil (never looked up). While this mount has records of it open for
// writing (EBUSY) or scratch files in it (ENOTEMPTY) it stays. Our store is
// closed only after the removal succeeded, and the node is marked removed
// so a process still inside it cannot recreate anything there.
func (m *mountState) removeCollection(rel string, c *collectionNode) syscall.Errno {
	if c != nil {
		c.commitMu.Lock()
		defer c.commitMu.Unlock()
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.writers) > 0 {
			m.log.Printf("rmdir %s refused: records of it are open for writing", rel)
			return syscall.EBUSY
		}
		if len(c.scratch) > 0 {
			return syscall.ENOTEMPTY
		}
	}
	if err := m.catalog.RemoveDocStore(rel); err != nil {
		if errno := errnoOf(err, 0); errno != 0 {
			m.log.Printf("rmdir %s refused (%v): %v", rel, errno, err)
			return errno
		}
		m.log.Printf("rmdir %s: %v", rel, err)
		return syscall.EIO
	}
	if c != nil {
		c.removed = true
	}
	m.forget(rel)
	return 0
}

// Create refuses files: a namespace holds only folders.
func (d *dirNode) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if d.m.readOnly {
		return nil, nil, 0, syscall.EROFS
	}
	return nil, nil, 0, syscall.EPERM
}

func (d *dirNode) Unlink(ctx context.Context, name string) syscall.Errno {
	if d.m.readOnly {
		return syscall.EROFS
	}
	return syscall.ENOENT
}

// Rename of collections and namespaces is not supported.
func (d *dirNode) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if d.m.readOnly {
		return syscall.EROFS
	}
	return syscall.EPERM
}

// dirChild makes the node shown for the directory rel of the given kind.
// The kind is part of the identity (Gen) so a directory that changes kind
// gets a fresh node.
func (m *mountState) dirChild(ctx context.Context, parent *fs.Inode, rel string, kind Kind, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	var node fs.InodeEmbedder
	switch kind {
	case KindNamespace:
		node = &dirNode{m: m, rel: rel}
	case KindDocStore:
		node = &collectionNode{m: m, rel: rel}
	case KindLog:
		node = &logNode{m: m, mount: rel, store: m.catalog.OpenLog(rel)}
	case KindQueue:
		node = &queueNode{m: m, mount: rel, store: m.catalog.OpenQueue(rel)}
	default:
		return nil, m.missingDirErrno(rel)
	}
	fi, err := m.catalog.Stat(rel)
	if err != nil {
		return nil, errnoOf(err, syscall.EIO)
	}
	perm := m.dirPerm()
	if kind == KindLog || kind == KindQueue {
		perm = roDirPerm
	}
	fuseattr.FromInfo(&out.Attr, fi, perm)
	return parent.NewInode(ctx, node, fs.StableAttr{Mode: syscall.S_IFDIR, Ino: dirIno(rel), Gen: uint64(kind)}), 0
}

// isHidden reports names never shown: storh metadata (.storh, lock files)
// and anything else starting with a dot.
func isHidden(name string) bool {
	return name == "" || name[0] == '.'
}
