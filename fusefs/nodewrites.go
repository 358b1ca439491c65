// Writes without handles (Config.NoOpen on a read-write mount).

package fusefs

import (
	"context"
	"slices"
	"sync"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/internal/procid"
)

// When OPEN is answered ENOSYS (mountFS.Open) the kernel sends no OPEN and
// no RELEASE for any file, not even one made by CREATE, and READ, WRITE,
// SETATTR, FLUSH and FSYNC name no handle: a warm read costs no request
// but its close's FLUSH. A record's uncommitted writes then live with the
// file nodes the kernel wrote it through (Linux 6.18, checked with a probe
// server):
//
//   - a WRITE, an ftruncate (SETATTR with FATTR_FH) or a truncation to 0
//     (open(O_TRUNC), which arrives as SETATTR{size 0} exactly as
//     truncate(2) to 0 does) starts the record's buffer, shared by every
//     node it is written through (nodeWriterTable): a writeHandle,
//     registered among the record's writers as an open's would be, with
//     its commit rules. The calling process becomes one of its owners;
//   - a FLUSH (every close(2), from whoever closes) commits the buffer
//     when an owner closes, and lets it go once stored. A refusal stands
//     for later closes through the same nodes until a write changes the
//     buffer, as with a handle, while writes through other nodes (opened
//     since) start anew from the stored record; refused content is
//     dropped from the kernel's pages before the refused close returns. A
//     reader's close commits nothing;
//   - a WRITE of no process (pid 0 and WRITE_CACHE: the kernel writing
//     back a shared mapping's pages, after the descriptor may be long
//     closed) is committed at once; a process the kernel cannot name to
//     the mount (pid 0 otherwise: outside its pid namespace) is one
//     owner, outsider;
//   - a buffer whose owners all exited without leaving it stored (refused;
//     the shell's truncation never written, touch of a new name,
//     truncate(2) to 0 by path) is let go by a sweep, a failure not yet
//     reported then reported.
//
// What this gives up against handles, for that one request per file:
// writes go through the kernel's pages (no direct I/O without an OPEN
// reply), so readers of a record being written in place may see the write
// in progress, as on a local file system; shared writable mappings work
// (their pages are committed as written back); the descriptors of one
// record share one buffer, as on a local file system; a descriptor does
// not hold the stored file, so a read of a record replaced or removed
// meanwhile may fail (readStored); a child that inherits a writer's
// descriptor and writes nothing closes it as a reader.

// nodeWriter is a record's uncommitted writes made without handles.
type nodeWriter struct {
	h *writeHandle

	// use is held around every use of h; gone: h was committed and let go
	// (a write that finds it so goes to the record's next writer). Lock
	// order: use, then h.mu.
	use  sync.Mutex
	gone bool

	mu     sync.Mutex
	owners []procid.ID // the processes that wrote or truncated it
}

// own makes p an owner; the zero ID (no process) owns nothing.
func (w *nodeWriter) own(p procid.ID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p != (procid.ID{}) && !slices.Contains(w.owners, p) {
		w.owners = append(w.owners, p)
	}
}

func (w *nodeWriter) ownedBy(p procid.ID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return p != (procid.ID{}) && slices.Contains(w.owners, p)
}

func (w *nodeWriter) anyOwnerAlive() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.ContainsFunc(w.owners, func(p procid.ID) bool { return p == outsider || p.Alive() })
}

// outsiderPid stands, in a request, for a process the kernel could not
// name to this mount (pid 0 in a request that is not a write-back: the
// caller is outside storhfs's pid namespace); mountFS puts it there.
const outsiderPid = ^uint32(0)

// outsider is the owner every such process is taken as: its closes
// commit, and it is never taken as gone (no /proc entry says so).
var outsider = procid.ID{PID: -1}

// callerOf is the process of the request's calling thread; the zero ID
// for a request of no process (writeBack). A thread /proc does not show
// (gone already, or no /proc) is taken as a process of its own.
func callerOf(ctx context.Context) procid.ID {
	fc, ok := ctx.(*fuse.Context)
	switch {
	case !ok || fc.Pid == 0:
		return procid.ID{}
	case fc.Pid == outsiderPid:
		return outsider
	}
	p, err := procid.Of(int(fc.Pid))
	if err != nil {
		return procid.ID{PID: int(fc.Pid)}
	}
	return p
}

// writeBack reports a request of no process: the kernel writing back a
// shared mapping's pages (pid 0; mountFS.Write tells it from an outsider).
func writeBack(ctx context.Context) bool {
	fc, ok := ctx.(*fuse.Context)
	return ok && fc.Pid == 0
}

// nodeWriterTable is a collection's node writers (under c.mu). The nodes
// the kernel wrote a record through share one writer (whichever node a
// descriptor came by: the node of a record changes with its stored
// version), as the descriptors of one file share its content on a local
// file system; once the record is unlinked its writer keeps its nodes but
// no longer the id, and a new create of the id starts another.
type nodeWriterTable struct {
	byNode map[*gofs.Inode]*nodeWriter
	byID   map[string]*nodeWriter
}

// attach makes w the writer of node and of record id; it reports whether
// node is new to the table.
func (t *nodeWriterTable) attach(node *gofs.Inode, id string, w *nodeWriter) (added bool) {
	if t.byNode == nil {
		t.byNode, t.byID = map[*gofs.Inode]*nodeWriter{}, map[string]*nodeWriter{}
	}
	_, had := t.byNode[node]
	t.byNode[node] = w
	t.byID[id] = w
	return !had
}

// drop forgets w and every node written through it; it returns how many
// nodes that was.
func (t *nodeWriterTable) drop(w *nodeWriter) int {
	nodes := t.nodesOf(w)
	for _, node := range nodes {
		delete(t.byNode, node)
	}
	t.leaveID(w)
	return len(nodes)
}

// leaveID keeps w for its nodes only: a write through any other node of
// its record starts another writer.
func (t *nodeWriterTable) leaveID(w *nodeWriter) {
	if t.byID[w.h.id] == w {
		delete(t.byID, w.h.id)
	}
}

// nodesOf lists the nodes written through w.
func (t *nodeWriterTable) nodesOf(w *nodeWriter) []*gofs.Inode {
	var nodes []*gofs.Inode
	for n, v := range t.byNode {
		if v == w {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// writers lists every writer once.
func (t *nodeWriterTable) writers() []*nodeWriter {
	var ws []*nodeWriter
	for _, w := range t.byNode {
		if !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	return ws
}

// nodeWriterOf returns node's writer, nil when it has none.
func (c *collectionNode) nodeWriterOf(node *gofs.Inode) *nodeWriter {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodeWriters.byNode[node]
}

// startNodeWriter returns node's writer for record id: the node's own, or
// the record's (the node joins it), or a new one (loading the stored
// record on first use); the caller becomes an owner.
func (c *collectionNode) startNodeWriter(ctx context.Context, node *gofs.Inode, id string) (*nodeWriter, syscall.Errno) {
	s, errno := c.store()
	if errno != 0 {
		return nil, errno
	}
	c.mu.Lock()
	w := c.nodeWriters.byNode[node]
	if w == nil {
		w = c.nodeWriters.byID[id]
		if w == nil {
			w = &nodeWriter{h: c.registerWriterLocked(&writeHandle{c: c, store: s, id: id})}
		}
		c.attachLocked(node, id, w)
	}
	c.mu.Unlock()
	w.own(callerOf(ctx))
	return w, 0
}

// adoptNodeWriter makes h (a record just created) node's and its record's
// writer, owned by the creating process; a writer the node had is let go.
func (c *collectionNode) adoptNodeWriter(ctx context.Context, node *gofs.Inode, h *writeHandle) {
	w := &nodeWriter{h: h}
	w.own(callerOf(ctx))
	c.mu.Lock()
	old := c.nodeWriters.byNode[node]
	c.attachLocked(node, h.id, w)
	c.mu.Unlock()
	if old != nil {
		c.letGo(old)
	}
}

// changeThrough applies change to the buffer of record id through node
// (startNodeWriter), on a writer not let go meanwhile.
func (c *collectionNode) changeThrough(ctx context.Context, node *gofs.Inode, id string, change func(h *writeHandle) syscall.Errno) (*nodeWriter, syscall.Errno) {
	for {
		w, errno := c.startNodeWriter(ctx, node, id)
		if errno != 0 {
			return nil, errno
		}
		w.use.Lock()
		if w.gone { // committed and let go since: no longer in the table
			w.use.Unlock()
			continue
		}
		errno = change(w.h)
		w.use.Unlock()
		return w, errno
	}
}

// writeThrough writes to the buffer of record id through node.
func (c *collectionNode) writeThrough(ctx context.Context, node *gofs.Inode, id string, data []byte, off int64) (uint32, syscall.Errno) {
	var n uint32
	w, errno := c.changeThrough(ctx, node, id, func(h *writeHandle) (errno syscall.Errno) {
		n, errno = h.Write(ctx, data, off)
		return errno
	})
	if errno == 0 && writeBack(ctx) {
		errno = c.settle(ctx, w) // write-back: no close will follow
	}
	return n, errno
}

// inUse runs fn on w's buffer unless w was let go (then it reports false).
func (w *nodeWriter) inUse(fn func(h *writeHandle)) bool {
	w.use.Lock()
	defer w.use.Unlock()
	if w.gone {
		return false
	}
	fn(w.h)
	return true
}

// readThrough reads record id as node (of version v, zero: none) shows
// it: its buffer while that holds changes not refused, else the stored
// record (readStored), else the buffer of the writer creating it.
func (c *collectionNode) readThrough(node *gofs.Inode, id string, v storedFile, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if w := c.nodeWriterOf(node); w != nil {
		var res fuse.ReadResult
		var errno syscall.Errno
		var read bool
		w.inUse(func(h *writeHandle) {
			if read = h.shown().holds(); read {
				res, errno = h.Read(context.Background(), dest, off)
			}
		})
		if read {
			return res, errno
		}
	}
	res, errno := c.readStored(id, v, func() { c.retireNode(node) }, dest, off)
	if errno == syscall.ENOENT {
		if buf, _ := c.shownBuffer(id); buf != nil {
			defer buf.free() // the read filled dest
			return (&bufferReadHandle{buf: buf}).Read(context.Background(), dest, off)
		}
	}
	return res, errno
}

// retireNode retires node if it is a record node (recordNode.retire).
func (c *collectionNode) retireNode(node *gofs.Inode) {
	if r, ok := node.Operations().(*recordNode); ok {
		r.retire()
	}
}

// flushThrough is a FLUSH through node: the handle's, else a commit of
// node's buffer when one of its owners closes.
func (c *collectionNode) flushThrough(ctx context.Context, node *gofs.Inode, f gofs.FileHandle) syscall.Errno {
	if h, ok := f.(gofs.FileFlusher); ok {
		return h.Flush(ctx)
	}
	w := c.nodeWriterOf(node)
	if w == nil || !w.ownedBy(callerOf(ctx)) {
		return 0
	}
	return c.settle(ctx, w)
}

// fsyncThrough is an FSYNC through node: the handle's, else a commit of
// node's buffer for an owner, which keeps it.
func (c *collectionNode) fsyncThrough(ctx context.Context, node *gofs.Inode, f gofs.FileHandle, flags uint32) syscall.Errno {
	if h, ok := f.(gofs.FileFsyncer); ok {
		return h.Fsync(ctx, flags)
	}
	w := c.nodeWriterOf(node)
	if w == nil || !w.ownedBy(callerOf(ctx)) {
		return 0
	}
	var errno syscall.Errno
	w.inUse(func(h *writeHandle) { errno = h.Fsync(ctx, flags) })
	return errno
}

// settle commits w as a handle's close does, and lets it go once stored;
// else (refused, or nothing written yet) it stays, so that the refusal
// stands for later closes of the same open file, until a write changes
// it or its owners are gone (the sweep). When the commit failed, what the
// kernel holds of the nodes written through (the writer's size, such as
// the 0 of an open(O_TRUNC), and pages) is dropped before the close
// returns: the store holds something else.
func (c *collectionNode) settle(ctx context.Context, w *nodeWriter) syscall.Errno {
	var errno syscall.Errno
	var stored bool
	w.inUse(func(h *writeHandle) {
		errno = h.Flush(ctx)
		stored = h.settled()
		if stored {
			c.dropLocked(w)
		} else {
			c.leaveRecordLocked(w)
		}
	})
	switch {
	case stored:
		w.h.Release(context.Background())
	case errno != 0:
		nodes := c.nodesOf(w)
		c.m.notifyAndWait(ctx, func() {
			for _, n := range nodes {
				n.NotifyContent(0, 0)
			}
		})
		fallthrough
	default:
		c.queueNodeWriterSweep()
	}
	return errno
}

// letGo ends w as a RELEASE ends a handle: unregistered, a failure not
// reported yet reported, its memory returned.
func (c *collectionNode) letGo(w *nodeWriter) {
	if w.inUse(func(*writeHandle) { c.dropLocked(w) }) {
		w.h.Release(context.Background())
	}
}

// dropLocked marks w gone and takes it out of the table (call under w.use).
func (c *collectionNode) dropLocked(w *nodeWriter) {
	w.gone = true
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m.writtenNodes.Add(-int64(c.nodeWriters.drop(w)))
}

// attachLocked makes w the writer of node and record id (under c.mu),
// counting node in the mount's written nodes.
func (c *collectionNode) attachLocked(node *gofs.Inode, id string, w *nodeWriter) {
	if c.nodeWriters.attach(node, id, w) {
		c.m.writtenNodes.Add(1)
	}
}

// leaveRecordLocked keeps w for the nodes written through it but no longer
// for the record (call under w.use): a close left it unstored (refused, or
// an empty truncation), and a write through another node, a descriptor
// opened since, starts from the stored record as a new open would.
func (c *collectionNode) leaveRecordLocked(w *nodeWriter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nodeWriters.leaveID(w)
}

// nodesOf lists the nodes written through w.
func (c *collectionNode) nodesOf(w *nodeWriter) []*gofs.Inode {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodeWriters.nodesOf(w)
}

// nodeWriterSweepDelay is how long after a close left a buffer unsettled
// the sweep looks whether its owners are gone.
const nodeWriterSweepDelay = 2 * time.Second

func (c *collectionNode) queueNodeWriterSweep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sweepQueued {
		c.sweepQueued = true
		time.AfterFunc(nodeWriterSweepDelay, c.sweepNodeWriters)
	}
}

// sweepNodeWriters lets go the writers whose owners have all exited, and
// comes back while others remain.
func (c *collectionNode) sweepNodeWriters() {
	c.mu.Lock()
	c.sweepQueued = false
	writers := c.nodeWriters.writers()
	c.mu.Unlock()
	left := false
	for _, w := range writers {
		if w.anyOwnerAlive() {
			left = true
		} else {
			c.letGo(w)
		}
	}
	if left && !c.m.isClosed() {
		c.queueNodeWriterSweep()
	}
}
