package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/internal/fuseattr"
	"github.com/storhfs/storhfs/internal/fuseopts"
	"github.com/storhfs/storhfs/shard"
)

// The FUSE floor: a minimal read-only go-fuse file system that serves the
// records of one collection from memory, as one flat directory of the same
// <id>.jsonc names and bytes the storhfs mount shows. It does only what any
// FUSE server must (a map lookup, attributes from memory, no backing file on
// open, reads from memory), so a tool run on it costs the FUSE round trips
// and the kernel's work alone: the floor under the storhfs mount.

// floorFile is one record file held in memory.
type floorFile struct {
	name string
	data []byte
	attr fuse.Attr // Ino left 0: go-fuse fills in the node's own
}

// floorTree is a flat directory of files, sorted by name. It is read-only
// after loading, so the nodes share it without locking.
type floorTree struct {
	files   []floorFile // sorted by name
	byName  map[string]int
	entries []fuse.DirEntry // the listing, in files order
	dirAttr fuse.Attr
}

// Permission bits as the storhfs mount shows them.
const (
	floorFilePerm = fuseattr.FilePerm
	floorDirPerm  = fuseattr.DirPerm
)

// floorIno is the inode number of file i (1 is the root).
func floorIno(i int) uint64 { return uint64(i) + 2 }

// loadFloorTree reads every record of the collection in collectionDir, in
// the order and under the names the storhfs mount lists them (shard.Walk:
// id order, "<id>.jsonc"), with their stat attributes.
func loadFloorTree(collectionDir string) (*floorTree, error) {
	var files []floorFile
	err := shard.Walk(collectionDir, "", func(e shard.Entry) error {
		f, err := loadFloorFile(e.ID+".jsonc", e.Path)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", collectionDir, err)
	}
	dir, err := os.Stat(collectionDir)
	if err != nil {
		return nil, err
	}
	return newFloorTree(files, dir)
}

// loadFloorFile reads the file at path and its attributes, shown as name.
func loadFloorFile(name, path string) (floorFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return floorFile{}, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return floorFile{}, err
	}
	f := floorFile{name: name, data: data}
	fuseattr.FromInfo(&f.attr, fi, floorFilePerm)
	f.attr.Size = uint64(len(data)) // what is served, even if the file changed in between
	return f, nil
}

// newFloorTree indexes files (sorted here; names must be unique) under a
// directory with dir's owner and times.
func newFloorTree(files []floorFile, dir os.FileInfo) (*floorTree, error) {
	slices.SortFunc(files, func(a, b floorFile) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	t := &floorTree{
		files:   files,
		byName:  make(map[string]int, len(files)),
		entries: make([]fuse.DirEntry, len(files)),
	}
	for i, f := range files {
		if _, dup := t.byName[f.name]; dup {
			return nil, fmt.Errorf("floor: name %s twice", f.name)
		}
		t.byName[f.name] = i
		t.entries[i] = fuse.DirEntry{Name: f.name, Mode: syscall.S_IFREG, Ino: floorIno(i)}
	}
	fuseattr.FromInfo(&t.dirAttr, dir, floorDirPerm)
	return t, nil
}

// lookup finds a file by name.
func (t *floorTree) lookup(name string) (int, bool) {
	i, ok := t.byName[name]
	return i, ok
}

// totalBytes is the size of all files together.
func (t *floorTree) totalBytes() int64 {
	var n int64
	for _, f := range t.files {
		n += int64(len(f.data))
	}
	return n
}

// floorDir is the root directory of the floor mount.
type floorDir struct {
	fs.Inode
	tree *floorTree
	mode floorMode // how the files answer OPEN and FLUSH
}

var (
	_ fs.NodeLookuper  = (*floorDir)(nil)
	_ fs.NodeGetattrer = (*floorDir)(nil)
	_ fs.NodeReaddirer = (*floorDir)(nil)
)

func (d *floorDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	i, ok := d.tree.lookup(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	out.Attr = d.tree.files[i].attr
	return d.NewInode(ctx, &floorFileNode{f: &d.tree.files[i], mode: d.mode},
		fs.StableAttr{Mode: syscall.S_IFREG, Ino: floorIno(i)}), 0
}

func (d *floorDir) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Attr = d.tree.dirAttr
	return 0
}

// Readdir lists the sorted slice; the stream only advances an index.
func (d *floorDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	return fs.NewListDirStream(d.tree.entries), 0
}

// floorFileNode is one file of the floor mount.
type floorFileNode struct {
	fs.Inode
	f    *floorFile
	mode floorMode
}

var (
	_ fs.NodeGetattrer = (*floorFileNode)(nil)
	_ fs.NodeOpener    = (*floorFileNode)(nil)
	_ fs.NodeReader    = (*floorFileNode)(nil)
	_ fs.NodeFlusher   = (*floorFileNode)(nil)
)

func (n *floorFileNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Attr = n.f.attr
	return 0
}

// Open: read-only, no handle and no backing file; the kernel keeps the
// page cache across opens and sends no FLUSH on close, as for a storhfs
// record opened for reading. In the no-open modes it answers ENOSYS, after
// which the kernel sends no OPEN (and no RELEASE) on this connection.
func (n *floorFileNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if n.mode != floorOpen {
		return nil, 0, syscall.ENOSYS
	}
	if flags&syscall.O_ACCMODE != syscall.O_RDONLY {
		return nil, 0, syscall.EROFS
	}
	return nil, fuse.FOPEN_KEEP_CACHE | fuse.FOPEN_NOFLUSH, 0
}

// Flush is not sent after a normal Open (NOFLUSH). Without OPEN the kernel
// sends it on every close: floorNoOpen answers ENOSYS, which stops it for
// the connection; floorNoOpenFlush answers every one, as a read-write
// mount that commits on FLUSH would.
func (n *floorFileNode) Flush(ctx context.Context, f fs.FileHandle) syscall.Errno {
	if n.mode == floorNoOpen {
		return syscall.ENOSYS
	}
	return 0
}

func (n *floorFileNode) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return fuse.ReadResultData(readAt(n.f.data, dest, off)), 0
}

// readAt is the part of data a read of len(dest) bytes at off returns.
func readAt(data, dest []byte, off int64) []byte {
	if off < 0 || off >= int64(len(data)) {
		return nil
	}
	end := min(off+int64(len(dest)), int64(len(data)))
	return data[off:end]
}

// floorMountOptions are storhfs's own mount options, with the kernel
// cache timeouts replaced by timeout (a variant of the floor).
func floorMountOptions(direct bool, timeout time.Duration, ioUring bool) *fs.Options {
	opts := fuseopts.Options(fuseopts.Settings{FsName: "storhfs-floor", Logger: log.New(os.Stderr, "floor: ", log.LstdFlags), Direct: direct, IOUring: ioUring})
	opts.Name = "storhfs-floor"
	opts.EntryTimeout, opts.AttrTimeout, opts.NegativeTimeout = &timeout, &timeout, &timeout
	return opts
}
