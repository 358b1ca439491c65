package fusefs

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// placeholderNode stands for a SegmentedLog or Queue collection until their
// read-only views are implemented: an empty, read-only folder.
type placeholderNode struct {
	fs.Inode
	m   *mountState
	rel string
}

var (
	_ fs.NodeGetattrer = (*placeholderNode)(nil)
	_ fs.NodeLookuper  = (*placeholderNode)(nil)
	_ fs.NodeReaddirer = (*placeholderNode)(nil)
	_ fs.NodeUnlinker  = (*placeholderNode)(nil)
	_ fs.NodeRmdirer   = (*placeholderNode)(nil)
)

func (p *placeholderNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	fi, err := p.m.catalog.Stat(p.rel)
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	setAttrFromInfo(&out.Attr, fi, roDirPerm)
	return 0
}

func (p *placeholderNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.ENOENT
}

func (p *placeholderNode) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	return fs.NewListDirStream(nil), 0
}

func (p *placeholderNode) Unlink(ctx context.Context, name string) syscall.Errno {
	return syscall.EROFS
}
func (p *placeholderNode) Rmdir(ctx context.Context, name string) syscall.Errno { return syscall.EROFS }
