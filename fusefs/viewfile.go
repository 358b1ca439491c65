package fusefs

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/zeebo/xxh3"
)

// viewSource is the read-only files of one log or queue directory. Names
// are relative to that directory's folder in the mount ("records.ndjson",
// "segments/seg-000001.ndjson", "pending.ndjson", ...).
type viewSource interface {
	// stat describes view name as the latest snapshot has it.
	stat(name string) (size int64, mtime time.Time, err error)
	// open returns a reader of view name over one snapshot: every read of
	// one open file sees the same content, whatever writers do meanwhile.
	open(name string) (viewReader, error)
}

type viewReader interface {
	io.ReaderAt
	Close() error
}

// viewFile is one read-only file of a log or queue folder. Its size is
// exact (the latest snapshot's); opens use direct I/O, so reads go to the
// open's own snapshot and the kernel keeps no stale pages.
type viewFile struct {
	fs.Inode
	src  viewSource
	name string
}

var (
	_ fs.NodeGetattrer = (*viewFile)(nil)
	_ fs.NodeSetattrer = (*viewFile)(nil)
	_ fs.NodeOpener    = (*viewFile)(nil)
)

func (v *viewFile) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return viewAttr(v.src, v.name, &out.Attr)
}

func (v *viewFile) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EROFS
}

func (v *viewFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_ACCMODE != syscall.O_RDONLY || flags&syscall.O_TRUNC != 0 {
		return nil, 0, syscall.EROFS
	}
	r, err := v.src.open(v.name)
	if err != nil {
		return nil, 0, errnoOf(err, syscall.EIO)
	}
	return &viewHandle{r: r}, fuse.FOPEN_DIRECT_IO, 0
}

// viewAttr fills the attributes of view name.
func viewAttr(src viewSource, name string, out *fuse.Attr) syscall.Errno {
	size, mtime, err := src.stat(name)
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	setMemAttr(out, 0, mtime, roFilePerm)
	out.Size = uint64(size)
	out.Blocks = (uint64(size) + 511) / 512
	return 0
}

// viewHandle reads one open view.
type viewHandle struct {
	r viewReader
}

var (
	_ fs.FileReader   = (*viewHandle)(nil)
	_ fs.FileReleaser = (*viewHandle)(nil)
)

func (h *viewHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n, err := h.r.ReadAt(dest, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, errnoOf(err, syscall.EIO)
	}
	return fuse.ReadResultData(dest[:n]), 0
}

func (h *viewHandle) Release(ctx context.Context) syscall.Errno {
	h.r.Close()
	return 0
}

// viewIno derives a view file's inode number from its path in the mount.
func viewIno(mountPath string) uint64 {
	h := xxh3.HashString("view\x00"+mountPath) & hashMask
	if h < 2 {
		h += 2
	}
	return h
}

// dirAttr describes a real directory shown read-only.
func dirAttr(dir string, out *fuse.Attr) syscall.Errno {
	fi, err := os.Stat(dir)
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	SetAttrFromInfo(out, fi, roDirPerm)
	return 0
}

// readOnlyDir refuses every change inside a log or queue folder.
type readOnlyDir struct{}

func (readOnlyDir) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EROFS
}

func (readOnlyDir) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EROFS
}

func (readOnlyDir) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

func (readOnlyDir) Mknod(ctx context.Context, name string, mode, dev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

func (readOnlyDir) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

func (readOnlyDir) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.EROFS
}

func (readOnlyDir) Unlink(ctx context.Context, name string) syscall.Errno { return syscall.EROFS }

func (readOnlyDir) Rmdir(ctx context.Context, name string) syscall.Errno { return syscall.EROFS }

func (readOnlyDir) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	return syscall.EROFS
}

var (
	_ fs.NodeSetattrer = readOnlyDir{}
	_ fs.NodeCreater   = readOnlyDir{}
	_ fs.NodeMkdirer   = readOnlyDir{}
	_ fs.NodeMknoder   = readOnlyDir{}
	_ fs.NodeSymlinker = readOnlyDir{}
	_ fs.NodeLinker    = readOnlyDir{}
	_ fs.NodeUnlinker  = readOnlyDir{}
	_ fs.NodeRmdirer   = readOnlyDir{}
	_ fs.NodeRenamer   = readOnlyDir{}
)
