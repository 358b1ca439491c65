package fusefs

import (
	"context"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/zeebo/xxh3"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/internal/fuseattr"
)

// viewSource is the read-only files of one log or queue directory. Names
// are relative to that directory's folder in the mount ("records.ndjson",
// "segments/seg-000001.ndjson", "pending.ndjson", ...).
type viewSource interface {
	// latest returns view name as the latest snapshot shows it.
	latest(name string) (viewSnap, error)
	// nodes is what the nodes of this source's views share.
	nodes() *viewNodes
}

// viewSnap is one view as one snapshot shows it, holding a reference to
// that snapshot: every retain is paired with a release, and the first
// reference comes from viewSource.latest.
type viewSnap interface {
	stat() viewStat
	// newReader starts a reader of the content: every read of it sees the
	// same bytes, whatever writers do meanwhile.
	newReader() (viewReader, error)
	// extendsKnown reports whether the engine's replays alone show that
	// prev (the same view in an older snapshot) is a byte prefix of this
	// view; false means "unknown".
	extendsKnown(prev viewSnap) bool
	retain()
	release()
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
}

// viewFile is one read-only file of a log or queue folder.
//
// A node follows its view while the view only grows by appends: its
// content is a chain of snapshots, each a byte prefix of the next
// (extendsView). So the kernel may keep the node's pages across opens
// (KEEP_CACHE), whichever snapshot of the chain they were read from, and
// an open file (tail -f) sees the growth. The first change that is not an
// append freezes the node at its last snapshot; a lookup of the name then
// gives a new node (same inode number, next generation), as if the file
// had been replaced, and files open on the old node keep reading it.
//
// Invariant (fstat agrees with read): the size the kernel holds for a
// node is one the node reported, never beyond its current snapshot, and
// every handle of the node can read up to the current snapshot's end.
//
// Invariant (no stale last page): the kernel learns a longer size of a
// node only after it dropped the pages it may hold from the old end on
// (viewgrowth.go).
//
// A frozen node with no open file releases its snapshot after
// releaseGrace (it keeps reporting its attributes; an open of it then
// fails with ESTALE, which makes the kernel look the name up again), so
// the old nodes the kernel keeps cached hold no files open.
//
// Without OPEN (a read-only mount, viewNodes.byNode) the node cannot count
// its open files: it reads for all of them through one shared handle, and
// keeps its snapshot until the kernel forgets the node, which it does once
// the name stands for another node and the last file open on the old one
// is closed. Each lookup of the name is then sent to the mount (a volatile
// entry), so every open (a path walk) moves the node to the latest
// snapshot or gives the name a new node, as an OPEN did.
type viewFile struct {
	fs.Inode
	src  viewSource
	name string

	refreshMu sync.Mutex // serializes refresh and releaseIfForgotten

	mu       sync.Mutex
	cur      viewSnap  // what reads serve; nil once released
	st       viewStat  // what the node reports: cur's once published (kept when cur is released)
	growth   growth    // cur's publication (viewgrowth.go)
	reported string    // key of the snapshot the kernel last got attributes of
	frozen   bool      // the view changed other than by appends after cur
	frozenAt time.Time // when frozen was set
	handles  int       // open files of the node, shared included
	// shared reads for every open file when opens have no handle
	// (viewNodes.byNode); made at the first such read, it counts as one
	// handle until the kernel forgets the node (releaseIfForgotten).
	shared *viewHandle
}

// releaseGrace is how long a frozen or forgotten node keeps its snapshot.
// An open that the kernel retries after an ESTALE, or a lookup that took
// the node from its parent just before the kernel's FORGET (lookupView
// returns the name's node while it follows the view), may still reach the
// node, and they take far less.
const releaseGrace = time.Second

// newViewFile makes the node of view name as snap shows it.
func newViewFile(src viewSource, name string, snap viewSnap) *viewFile {
	st := snap.stat()
	return &viewFile{src: src, name: name, cur: snap, st: st, reported: st.key}
}

var (
	_ fs.NodeGetattrer   = (*viewFile)(nil)
	_ fs.NodeSetattrer   = (*viewFile)(nil)
	_ fs.NodeOpener      = (*viewFile)(nil)
	_ fs.NodeOnForgetter = (*viewFile)(nil)
	_ fs.NodeReader      = (*viewFile)(nil)
)

// refresh moves the node to the latest snapshot when that one only
// appended to cur, and freezes it when the view changed otherwise (or is
// gone). It reports whether cur is now the latest snapshot.
func (v *viewFile) refresh() bool {
	v.refreshMu.Lock()
	defer v.refreshMu.Unlock()
	v.mu.Lock()
	cur, frozen := v.cur, v.frozen
	v.mu.Unlock()
	if frozen {
		return false
	}
	latest, err := v.src.latest(v.name)
	if err != nil {
		v.freeze()
		return false
	}
	if latest.stat().key == cur.stat().key {
		latest.release()
		return true
	}
	if grown, err := extendsView(cur, latest); err != nil || !grown {
		latest.release()
		v.freeze()
		return false
	}
	v.grow(cur, latest)
	return true
}

func (v *viewFile) freeze() {
	v.mu.Lock()
	v.frozen, v.frozenAt = true, time.Now()
	v.mu.Unlock()
	time.AfterFunc(releaseGrace, v.releaseIfIdle)
}

// releaseIfIdle releases the snapshot of a frozen node with no open file,
// once frozen for releaseGrace.
func (v *viewFile) releaseIfIdle() {
	v.mu.Lock()
	var cur viewSnap
	if v.frozen && v.handles == 0 && time.Since(v.frozenAt) >= releaseGrace {
		cur, v.cur = v.cur, nil
	}
	v.mu.Unlock()
	if cur != nil {
		cur.release()
	}
}

// closed notes that one of the node's open files was closed.
func (v *viewFile) closed() {
	v.mu.Lock()
	v.handles--
	v.mu.Unlock()
	v.releaseIfIdle()
}

// snapshot returns the node's current snapshot, retained (nil once
// released).
func (v *viewFile) snapshot() viewSnap {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cur != nil {
		v.cur.retain()
	}
	return v.cur
}

// report fills out with the current snapshot's attributes, as the kernel
// will hold them.
func (v *viewFile) report(out *fuse.Attr) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.reported = v.st.key
	setViewAttr(out, v.st)
}

// Getattr answers from the node, whatever handle f is: the kernel keeps
// one size per node, for every descriptor open on it.
func (v *viewFile) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	v.reportMoved(func() bool {
		if !v.kernelLags() {
			v.refresh()
		}
		return true
	}, &out.Attr)
	return 0
}

func (v *viewFile) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EROFS
}

func (v *viewFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if changesContent(flags) {
		return nil, 0, syscall.EROFS
	}
	nodes, pid := v.src.nodes(), callerPid(ctx)
	retry := nodes.retryOf(v.name, pid, time.Now())
	current := v.refresh()
	v.awaitPublished()
	refuse := !retry && (!current || !v.isReported())
	if refuse {
		nodes.noteRefusal(v.name, pid, time.Now())
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if refuse || v.cur == nil {
		// The kernel holds an older size of this node (the view grew
		// since it asked), or the name now stands for a new node. ESTALE
		// makes it look the name up again and retry the open once
		// (do_filp_open with LOOKUP_REVAL); the retry reads what that
		// lookup reported.
		return nil, 0, syscall.ESTALE
	}
	v.cur.retain()
	v.handles++
	// NOFLUSH: closing a read-only descriptor has nothing to commit.
	return &viewHandle{node: v, snap: v.cur}, fuse.FOPEN_KEEP_CACHE | fuse.FOPEN_NOFLUSH, 0
}

// Read serves a READ through its open file's handle or, with opens that
// have none (viewNodes.byNode), through the node's shared handle.
func (v *viewFile) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if h, ok := f.(fs.FileReader); ok {
		return h.Read(ctx, dest, off)
	}
	h := v.sharedHandle()
	if h == nil {
		// Released: the kernel forgot the node, so no file is open on it.
		return nil, syscall.ESTALE
	}
	res, errno := h.Read(ctx, dest, off)
	h.closeReaderWhenIdle()
	return res, errno
}

// sharedHandle returns the node's shared handle, made on first use; nil
// once the node released its snapshot.
func (v *viewFile) sharedHandle() *viewHandle {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.shared == nil && v.cur != nil {
		v.cur.retain()
		v.handles++
		v.shared = &viewHandle{node: v, snap: v.cur}
	}
	return v.shared
}

// isReported: the kernel was last given the current snapshot's attributes.
func (v *viewFile) isReported() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.reported == v.st.key
}

// OnForget releases the node's snapshot after releaseGrace, unless a
// lookup revived the node meanwhile.
func (v *viewFile) OnForget() {
	time.AfterFunc(releaseGrace, v.releaseIfForgotten)
}

// releaseIfForgotten releases the snapshot of a node the kernel does not
// know, and freezes it: should it be revived after all, an open of it
// fails with ESTALE, which makes the kernel look the name up again (a new
// node). Checking under mu keeps an open from slipping in between.
func (v *viewFile) releaseIfForgotten() {
	v.refreshMu.Lock()
	defer v.refreshMu.Unlock()
	v.mu.Lock()
	if !v.Forgotten() {
		v.mu.Unlock()
		return
	}
	cur, shared := v.cur, v.shared
	v.cur, v.frozen, v.shared = nil, true, nil
	v.mu.Unlock()
	if cur != nil {
		cur.release()
	}
	if shared != nil {
		shared.Release(context.Background())
	}
}

func callerPid(ctx context.Context) uint32 {
	if c, ok := ctx.(*fuse.Context); ok {
		return c.Pid
	}
	return 0
}

// lookupView gives the node of view (a name below src's folder) as the
// latest snapshot shows it: the name's node while it follows the view,
// else a new one. name is the file's name in parent, mountPath its path in
// the mount.
func lookupView(ctx context.Context, parent *fs.Inode, src viewSource, view, name, mountPath string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if src.nodes().byNode {
		out.SetEntryTimeout(volatileTimeout)
	}
	if child := parent.GetChild(name); child != nil {
		if old, ok := child.Operations().(*viewFile); ok && old.reportMoved(old.refresh, &out.Attr) {
			return child, 0
		}
	}
	snap, err := src.latest(view)
	if err != nil {
		return nil, errnoOf(err, syscall.EIO)
	}
	node := newViewFile(src, view, snap)
	setViewAttr(&out.Attr, node.st)
	return parent.NewInode(ctx, node,
		fs.StableAttr{Mode: syscall.S_IFREG, Ino: viewIno(mountPath), Gen: src.nodes().gen.Add(1)}), 0
}

// isView reports whether n is a view file. The watcher drops only its
// entry, never its attributes or pages: those are the node's own snapshot
// chain's (see viewFile), and the next lookup of the name reports the
// latest size. An inode invalidation would race with an fstat in the
// kernel: the GETATTR reply, older than the invalidation, is not applied
// to the inode, yet fstat returns its size, ahead of what read serves
// (the node's own page drop at a growth has that effect too, on the
// requests it meets: viewgrowth.go says why that is harmless).
func isView(n *fs.Inode) bool {
	_, ok := n.Operations().(*viewFile)
	return ok
}

// setViewAttr fills the attributes of a view.
func setViewAttr(out *fuse.Attr, st viewStat) {
	setMemAttr(out, 0, st.mtime, roFilePerm)
	out.Size = uint64(st.size)
	out.Blocks = (uint64(st.size) + 511) / 512
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
	fi, err := fsutil.Stat(dir)
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	fuseattr.FromInfo(out, fi, roDirPerm)
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
