package fusefs

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// logNode is a SegmentedLog collection, or one partition of a partitioned
// log, shown read-only:
//
//	records.ndjson          live records in stream order (when dir has manifest.jsonc)
//	segments/<file>.ndjson  each segment's payload lines
//	<partition>/            each partition of a partitioned log, same files
type logNode struct {
	fs.Inode
	readOnlyDir
	m     *mountState
	mount string   // path of this folder below the mount point
	store LogStore // the log directory
}

var (
	_ fs.NodeGetattrer = (*logNode)(nil)
	_ fs.NodeLookuper  = (*logNode)(nil)
	_ fs.NodeReaddirer = (*logNode)(nil)
)

func (l *logNode) hasManifest() bool { return l.store.HasRecords() }

func (l *logNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return dirAttr(l.store.Dir(), &out.Attr)
}

func (l *logNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	switch {
	case name == recordsView && l.hasManifest():
		return lookupView(ctx, l.EmbeddedInode(), l.m.logSource(l.store), recordsView, name, childRel(l.mount, name), out)
	case name == segmentsView && l.hasManifest():
		if errno := dirAttr(l.store.Dir(), &out.Attr); errno != 0 {
			return nil, errno
		}
		seg := &segmentsNode{src: l.m.logSource(l.store), mount: childRel(l.mount, name)}
		return l.NewInode(ctx, seg, fs.StableAttr{Mode: syscall.S_IFDIR, Ino: dirIno(seg.mount)}), 0
	case !isHidden(name) && l.isPartition(name):
		p := &logNode{m: l.m, mount: childRel(l.mount, name), store: l.store.Partition(name)}
		if errno := dirAttr(p.store.Dir(), &out.Attr); errno != 0 {
			return nil, errno
		}
		return l.NewInode(ctx, p, fs.StableAttr{Mode: syscall.S_IFDIR, Ino: dirIno(p.mount)}), 0
	}
	return nil, syscall.ENOENT
}

func (l *logNode) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	var list []fuse.DirEntry
	if l.hasManifest() {
		list = append(list,
			fuse.DirEntry{Name: recordsView, Mode: syscall.S_IFREG, Ino: viewIno(childRel(l.mount, recordsView))},
			fuse.DirEntry{Name: segmentsView, Mode: syscall.S_IFDIR, Ino: dirIno(childRel(l.mount, segmentsView))})
	}
	for _, p := range l.partitions() {
		list = append(list, fuse.DirEntry{Name: p, Mode: syscall.S_IFDIR, Ino: dirIno(childRel(l.mount, p))})
	}
	return listWithDots(&l.Inode, list), 0
}

// isPartition: name is a partition of the log (LogStore.IsPartition)
// whose name is not one of the log's own views.
func (l *logNode) isPartition(name string) bool {
	return name != recordsView && name != segmentsView && l.store.IsPartition(name)
}

// partitions lists the shown partition folders, sorted (dates sort by time).
func (l *logNode) partitions() []string {
	var names []string
	for _, p := range l.store.Partitions() {
		if l.isPartition(p) {
			names = append(names, p)
		}
	}
	return names
}

// segmentsNode lists a log's segments (the manifest's, as the latest
// snapshot saw them), each a read-only view with the guard stripped.
type segmentsNode struct {
	fs.Inode
	readOnlyDir
	src   *logSource
	mount string
}

var (
	_ fs.NodeGetattrer = (*segmentsNode)(nil)
	_ fs.NodeLookuper  = (*segmentsNode)(nil)
	_ fs.NodeReaddirer = (*segmentsNode)(nil)
)

func (s *segmentsNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	dir := s.src.store.Dir()
	if errno := dirAttr(dir+"/"+s.src.store.Layout().Segments, &out.Attr); errno != syscall.ENOENT {
		return errno
	}
	return dirAttr(dir, &out.Attr)
}

func (s *segmentsNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return lookupView(ctx, s.EmbeddedInode(), s.src, segmentsView+"/"+name, name, childRel(s.mount, name), out)
}

func (s *segmentsNode) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	names, err := s.src.segments()
	if err != nil {
		return nil, errnoOf(err, syscall.EIO)
	}
	list := make([]fuse.DirEntry, len(names))
	for i, n := range names {
		list[i] = fuse.DirEntry{Name: n, Mode: syscall.S_IFREG, Ino: viewIno(childRel(s.mount, n))}
	}
	return listWithDots(&s.Inode, list), 0
}
