package fusefs

import (
	"context"
	"errors"
	"io"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/zeebo/xxh3"

	"storhfs/core/fsutil"
)

// viewSource is the read-only files of one log or queue directory. Names
// are relative to that directory's folder in the mount ("records.ndjson",
// "segments/seg-000001.ndjson", "pending.ndjson", ...).
type viewSource interface {
	// stat describes view name as the latest snapshot has it.
	stat(name string) (viewStat, error)
	// open returns a reader of view name over the latest snapshot: every
	// read of one open file sees the same content, whatever writers do
	// meanwhile.
	open(name string) (viewReader, error)
}

// viewStat is a view as one snapshot shows it.
type viewStat struct {
	size  int64
	mtime time.Time
	key   string // the snapshot's fingerprint key: equal keys, equal content
}

type viewReader interface {
	io.ReaderAt
	Close() error
	// snapshotKey is the fingerprint key of the snapshot read.
	snapshotKey() string
}

// viewFile is one read-only file of a log or queue folder as one snapshot
// shows it: its size, time and content never change. When the log or
// queue changes, a lookup of the name gives a new node (same inode number,
// next generation), as if the file had been replaced, and the watcher
// drops the kernel's entry for the name. So the kernel may keep a node's
// pages across opens (KEEP_CACHE): they can only be its own content.
type viewFile struct {
	fs.Inode
	src  viewSource
	name string
	st   viewStat
}

var (
	_ fs.NodeGetattrer = (*viewFile)(nil)
	_ fs.NodeSetattrer = (*viewFile)(nil)
	_ fs.NodeOpener    = (*viewFile)(nil)
)

func (v *viewFile) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	setViewAttr(&out.Attr, v.st)
	return 0
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
	if r.snapshotKey() != v.st.key {
		// Changed since this node was looked up (a path resolved through
		// an entry the kernel still caches): read the latest content past
		// this node's pages and size.
		return &viewHandle{r: r}, fuse.FOPEN_DIRECT_IO, 0
	}
	// NOFLUSH: closing a read-only descriptor has nothing to commit.
	return &viewHandle{r: r}, fuse.FOPEN_KEEP_CACHE | fuse.FOPEN_NOFLUSH, 0
}

// lookupView makes the node of view (a name below src's folder) as the
// latest snapshot shows it; mountPath is the file's path in the mount.
func lookupView(ctx context.Context, parent *fs.Inode, src viewSource, view, mountPath string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	st, err := src.stat(view)
	if err != nil {
		return nil, errnoOf(err, syscall.EIO)
	}
	setViewAttr(&out.Attr, st)
	return parent.NewInode(ctx, &viewFile{src: src, name: view, st: st},
		fs.StableAttr{Mode: syscall.S_IFREG, Ino: viewIno(mountPath), Gen: viewGen(st.key)}), 0
}

// setViewAttr fills the attributes of a view.
func setViewAttr(out *fuse.Attr, st viewStat) {
	setMemAttr(out, 0, st.mtime, roFilePerm)
	out.Size = uint64(st.size)
	out.Blocks = (uint64(st.size) + 511) / 512
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

// viewGen is the node generation of a view as the snapshot with
// fingerprint key shows it.
func viewGen(key string) uint64 { return xxh3.HashString(key) }

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
	fi, err := fsutil.Stat(dir)
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
