package fusefs

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// queueNode is a Queue shown read-only: pending.ndjson, processing.ndjson,
// done.ndjson and events.ndjson (see queueViews).
type queueNode struct {
	fs.Inode
	readOnlyDir
	m     *mountState
	mount string
	store QueueStore
}

var (
	_ fs.NodeGetattrer = (*queueNode)(nil)
	_ fs.NodeLookuper  = (*queueNode)(nil)
	_ fs.NodeReaddirer = (*queueNode)(nil)
)

func (q *queueNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return dirAttr(q.store.Dir(), &out.Attr)
}

func (q *queueNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if _, ok := queueView(name); !ok {
		return nil, syscall.ENOENT
	}
	return lookupView(ctx, q.EmbeddedInode(), q.m.queueSource(q.store), name, name, childRel(q.mount, name), out)
}

func (q *queueNode) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	list := make([]fuse.DirEntry, len(queueViews))
	for i, v := range queueViews {
		list[i] = fuse.DirEntry{Name: v.name, Mode: syscall.S_IFREG, Ino: viewIno(childRel(q.mount, v.name))}
	}
	return listWithDots(&q.Inode, list), 0
}
