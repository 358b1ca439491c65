package fusefs

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// MOUNTPOINT/.storhfs holds read-only files about the mount itself. It is
// reachable by name at the mount's root but not listed (like ZFS's .zfs),
// so ls, find, rsync and backups never see it:
//
//	.storhfs/errors   the last refused or failed commits, newest last:
//	                  "<RFC 3339 UTC time> <path> rejected: <reason>"
const (
	controlDirName = ".storhfs"
	errorsFileName = "errors"
)

// Inode numbers of the control files: bits 63 and 62 together are used by
// neither records, directories nor scratch files (names.go).
const (
	controlDirIno  = scratchInoBase | dirInoBit | 1
	errorsFileIno  = scratchInoBase | dirInoBit | 2
	controlDirPerm = roDirPerm
)

// rootDir is the storage root shown as a namespace, plus .storhfs.
type rootDir struct{ *dirNode }

var _ fs.NodeLookuper = (*rootDir)(nil)

func (r *rootDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if name == controlDirName {
		return r.m.controlDir(ctx, &r.Inode, out), 0
	}
	return r.dirNode.Lookup(ctx, name, out)
}

// controlDir returns the .storhfs node below the root node parent.
func (m *mountState) controlDir(ctx context.Context, parent *fs.Inode, out *fuse.EntryOut) *fs.Inode {
	node := &controlDirNode{m: m}
	node.attr(&out.Attr)
	return parent.NewInode(ctx, node, fs.StableAttr{Mode: syscall.S_IFDIR, Ino: controlDirIno})
}

// controlDirNode is MOUNTPOINT/.storhfs.
type controlDirNode struct {
	fs.Inode
	m *mountState
}

var (
	_ fs.NodeGetattrer = (*controlDirNode)(nil)
	_ fs.NodeLookuper  = (*controlDirNode)(nil)
	_ fs.NodeReaddirer = (*controlDirNode)(nil)
)

func (d *controlDirNode) attr(out *fuse.Attr) {
	setMemAttr(out, 0, d.m.started, controlDirPerm)
	out.Mode = syscall.S_IFDIR | controlDirPerm
	out.Nlink, out.Size = 2, 4096
}

func (d *controlDirNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	d.attr(&out.Attr)
	return 0
}

func (d *controlDirNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if name != errorsFileName {
		return nil, syscall.ENOENT
	}
	n := d.m.errorsInode(ctx, &d.Inode)
	n.Operations().(*errorsFile).attr(&out.Attr)
	out.SetAttrTimeout(volatileTimeout)
	return n, 0
}

// errorsInode returns the one node of .storhfs/errors, made (never to be
// forgotten) on first use, so that a refusal can have the kernel drop its
// size and pages (errorsChanged).
func (m *mountState) errorsInode(ctx context.Context, parent *fs.Inode) *fs.Inode {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.errors == nil {
		m.errors = parent.NewPersistentInode(ctx, &errorsFile{m: m}, fs.StableAttr{Mode: syscall.S_IFREG, Ino: errorsFileIno})
	}
	return m.errors
}

// errorsChanged has the kernel drop what it holds of .storhfs/errors. A
// mount without OPEN needs it: reads go through the kernel's pages and
// size, which the file's 1 ns attribute lifetime (a clock tick in the
// kernel) may leave standing across a refusal made within that tick.
func (m *mountState) errorsChanged() {
	m.mu.Lock()
	n := m.errors
	m.mu.Unlock()
	if n != nil {
		m.notify(func() { n.NotifyContent(0, 0) })
	}
}

func (d *controlDirNode) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	return fs.NewListDirStream([]fuse.DirEntry{
		{Name: ".", Mode: syscall.S_IFDIR, Ino: controlDirIno},
		{Name: "..", Mode: syscall.S_IFDIR, Ino: 1}, // the root
		{Name: errorsFileName, Mode: syscall.S_IFREG, Ino: errorsFileIno},
	}), 0
}

// errorsFile is MOUNTPOINT/.storhfs/errors: the refusal log's lines. Its
// size is exact (cat, tail, wc); its attributes are never cached, as they
// change with every refusal. Each open reads a snapshot.
type errorsFile struct {
	fs.Inode
	m *mountState
}

var (
	_ fs.NodeGetattrer = (*errorsFile)(nil)
	_ fs.NodeOpener    = (*errorsFile)(nil)
	_ fs.NodeReader    = (*errorsFile)(nil)
)

func (f *errorsFile) attr(out *fuse.Attr) {
	data, last := f.m.refusals.contents()
	if last.IsZero() {
		last = f.m.started
	}
	setMemAttr(out, len(data), last, roFilePerm)
}

func (f *errorsFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	f.attr(&out.Attr)
	out.SetTimeout(volatileTimeout)
	return 0
}

func (f *errorsFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if changesContent(flags) {
		return nil, 0, syscall.EACCES
	}
	data, _ := f.m.refusals.contents()
	return &bytesReadHandle{data: data}, fuse.FOPEN_DIRECT_IO | fuse.FOPEN_NOFLUSH, 0
}

// Read serves the open's snapshot, or, when opens have no handle (a
// read-only mount), the lines as they are now: the attributes are never
// cached, so each read(2) asks for them first, and a changed size or time
// drops the pages the kernel kept.
func (f *errorsFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if h, ok := fh.(fs.FileReader); ok {
		return h.Read(ctx, dest, off)
	}
	data, _ := f.m.refusals.contents()
	return fuse.ReadResultData(sliceAt(data, dest, off)), 0
}

// bytesReadHandle reads a copy of a small control file's bytes, taken at
// open (.storhfs/errors holds at most maxRefusalBytes).
type bytesReadHandle struct {
	data []byte
}

var _ fs.FileReader = (*bytesReadHandle)(nil)

func (h *bytesReadHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return fuse.ReadResultData(sliceAt(h.data, dest, off)), 0
}
