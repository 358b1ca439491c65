package fusefs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// Writes without handles (nodewrites.go): the requests a mount with
// Config.NoOpen receives, each from a process, through one file node.

// nodeWriteTest is a collection whose mount sends no OPEN, a record node
// of idA in it, and two live processes: this test's and a child's.
type nodeWriteTest struct {
	t      *testing.T
	s      *fakeStore
	c      *collectionNode
	node   *gofs.Inode
	self   context.Context
	other  context.Context
	child  *exec.Cmd
	kernel context.Context // a request of no process (write-back)
}

func newNodeWriteTest(t *testing.T, ids ...string) *nodeWriteTest {
	s := newFakeStore(t, ids...)
	c := quietCollection(s)
	c.m.noOpen = true
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Skipf("no sleep(1) for a second process: %v", err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	t.Cleanup(func() { checkWrittenNodes(t, c) })
	return &nodeWriteTest{
		t: t, s: s, c: c, node: &gofs.Inode{}, child: child,
		self:   callerContext(os.Getpid()),
		other:  callerContext(child.Process.Pid),
		kernel: callerContext(0),
	}
}

// checkWrittenNodes checks the mount's count of written nodes, which lets
// FLUSH skip the node tree while it is 0 (mountFS.Flush), against c's
// table, the only collection of the test's mount.
func checkWrittenNodes(t *testing.T, c *collectionNode) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, want := c.m.writtenNodes.Load(), int64(len(c.nodeWriters.byNode)); got != want {
		t.Errorf("the mount counts %d written nodes, its table holds %d", got, want)
	}
}

func callerContext(pid int) context.Context {
	return &fuse.Context{Caller: fuse.Caller{Pid: uint32(pid)}, Cancel: nil}
}

func (n *nodeWriteTest) write(ctx context.Context, data string, off int64) syscall.Errno {
	_, errno := n.c.writeThrough(ctx, n.node, idA, []byte(data), off)
	return errno
}

// truncate sends SETATTR{size} as the kernel does for open(O_TRUNC) and
// truncate(2) (fh false) or ftruncate (fh true).
func (n *nodeWriteTest) truncate(ctx context.Context, size uint64, fh bool) syscall.Errno {
	in := fuse.SetAttrIn{SetAttrInCommon: fuse.SetAttrInCommon{Valid: fuse.FATTR_SIZE, Size: size}}
	if fh {
		in.Valid |= fuse.FATTR_FH
	}
	return n.c.setRecordAttr(ctx, n.node, idA, nil, &in, &fuse.AttrOut{})
}

func (n *nodeWriteTest) read() string {
	n.t.Helper()
	res, errno := n.c.readThrough(n.node, idA, storedFile{}, make([]byte, 4096), 0)
	if errno != 0 {
		n.t.Fatalf("read: %v", errno)
	}
	data, _ := res.Bytes(make([]byte, 4096))
	return string(data)
}

// The shell's `echo ... > rec`: open(O_TRUNC) arrives as a truncation to
// 0, the shell closes its first descriptor before the write (an empty
// buffer: kept), a reader's close in between commits nothing, and the
// writer's last close commits and lets the buffer go.
func TestNodeWritesCommitAtTheWritersClose(t *testing.T) {
	n := newNodeWriteTest(t, idA)
	stored := n.s.content(idA)
	if errno := n.truncate(n.self, 0, false); errno != 0 {
		t.Fatalf("open(O_TRUNC): %v", errno)
	}
	if errno := n.c.flushThrough(n.self, n.node, nil); errno != syscall.EINVAL {
		t.Errorf("close of the empty truncation = %v, want EINVAL", errno)
	}
	if n.c.nodeWriterOf(n.node) == nil {
		t.Fatal("the empty truncation's buffer was let go: the write that follows would start from the stored record")
	}
	if got := n.c.m.writtenNodes.Load(); got != 1 {
		t.Errorf("%d written nodes counted while the truncation's buffer stays, want 1", got)
	}
	if errno := n.write(n.self, recordOf(idA, "2"), 0); errno != 0 {
		t.Fatal(errno)
	}
	if got := n.read(); got != recordOf(idA, "2") {
		t.Errorf("the node reads %q before the commit, want its buffer", got)
	}
	if errno := n.c.flushThrough(n.other, n.node, nil); errno != 0 {
		t.Errorf("a reader's close = %v", errno)
	}
	if got := n.s.content(idA); got != stored {
		t.Errorf("a reader's close committed another process's buffer: %q", got)
	}
	if errno := n.c.flushThrough(n.self, n.node, nil); errno != 0 {
		t.Fatalf("the writer's close: %v", errno)
	}
	if got := n.s.content(idA); got != recordOf(idA, "2") {
		t.Errorf("stored %q after the writer's close", got)
	}
	if n.c.nodeWriterOf(n.node) != nil || len(n.c.openWriters(idA)) != 0 {
		t.Error("a committed buffer stays")
	}
	if got := n.c.m.writtenNodes.Load(); got != 0 {
		t.Errorf("%d written nodes counted once the buffer was committed, want 0", got)
	}
	if got := n.read(); got != recordOf(idA, "2") {
		t.Errorf("the node reads %q after the commit", got)
	}
}

// Refused content is reported to the close that committed it; the refusal
// stands for later closes of the same open file (the shell's copy of the
// descriptor) and nothing is stored, readers see the stored record, and a
// new write through the node is committed again.
func TestNodeWritesRefusalStands(t *testing.T) {
	n := newNodeWriteTest(t, idA)
	stored := n.s.content(idA)
	n.truncate(n.self, 0, false)
	n.write(n.self, "not a record", 0)
	errno := n.c.flushThrough(n.self, n.node, nil)
	if errno == 0 {
		t.Fatal("refused content committed without an error")
	}
	if again := n.c.flushThrough(n.self, n.node, nil); again != errno {
		t.Errorf("a later close = %v, want %v (the refusal stands)", again, errno)
	}
	if got := n.s.content(idA); got != stored {
		t.Errorf("stored %q", got)
	}
	if got := n.read(); got != stored {
		t.Errorf("the node reads %q after the refusal, want the stored record", got)
	}
	if log, _ := n.c.m.refusals.contents(); strings.Count(string(log), "\n") != 1 {
		t.Errorf("refusal not reported once: %q", log)
	}
	// A descriptor opened since (another node) starts from the stored record.
	later := &gofs.Inode{}
	if _, errno := n.c.writeThrough(n.self, later, idA, []byte("{"), 0); errno != 0 {
		t.Fatal(errno)
	}
	if w := n.c.nodeWriterOf(later); w == n.c.nodeWriterOf(n.node) || w.h.shown().size != len(stored) {
		t.Errorf("a write through another node joined the refused buffer")
	}
	n.c.letGo(n.c.nodeWriterOf(later))
	n.truncate(n.self, 0, false)
	n.write(n.self, recordOf(idA, "4"), 0)
	if errno := n.c.flushThrough(n.self, n.node, nil); errno != 0 {
		t.Fatalf("close after a new write: %v", errno)
	}
	if got := n.s.content(idA); got != recordOf(idA, "4") {
		t.Errorf("stored %q", got)
	}
}

// A write of no process is a shared mapping written back: committed at once.
func TestNodeWritesWriteBackCommitsAtOnce(t *testing.T) {
	n := newNodeWriteTest(t, idA)
	if errno := n.write(n.kernel, recordOf(idA, "3"), 0); errno != 0 {
		t.Fatal(errno)
	}
	if got := n.s.content(idA); got != recordOf(idA, "3") {
		t.Errorf("stored %q after a write-back", got)
	}
	if n.c.nodeWriterOf(n.node) != nil {
		t.Error("the written-back buffer stays")
	}
}

// An ftruncate (FATTR_FH) cuts the node's buffer; a truncate(2) by path to
// a non-zero size, which no close follows, commits at once.
func TestNodeWritesTruncations(t *testing.T) {
	n := newNodeWriteTest(t, idA)
	if errno := n.truncate(n.self, 5, true); errno != 0 {
		t.Fatal(errno)
	}
	if w := n.c.nodeWriterOf(n.node); w == nil || w.h.shown().size != 5 {
		t.Fatalf("ftruncate did not cut the node's buffer")
	}
	n.c.letGo(n.c.nodeWriterOf(n.node))

	long := recordOf(idA, "long value") + "   "
	if err := n.s.PutRaw(idA, []byte(long)); err != nil {
		t.Fatal(err)
	}
	if errno := n.truncate(n.self, uint64(len(long)-3), false); errno != 0 {
		t.Fatal(errno)
	}
	if n.c.nodeWriterOf(n.node) != nil {
		t.Error("truncate(2) by path started a buffer no close would commit")
	}
	if got := n.s.content(idA); got != recordOf(idA, "long value") {
		t.Errorf("stored %q after truncate(2)", got)
	}
}

// A buffer left unsettled by processes that have all exited (truncate(2)
// to 0 by path; touch of a new name) is let go by the sweep, its failure
// reported; one whose owner lives stays.
func TestNodeWritesSweepLetsGoWhenOwnersExit(t *testing.T) {
	n := newNodeWriteTest(t, idA)
	stored := n.s.content(idA)
	if errno := n.truncate(n.other, 0, false); errno != 0 {
		t.Fatal(errno)
	}
	n.c.sweepNodeWriters()
	if n.c.nodeWriterOf(n.node) == nil {
		t.Fatal("the sweep let go the buffer of a live process")
	}
	n.child.Process.Kill()
	n.child.Wait()
	n.c.sweepNodeWriters()
	if n.c.nodeWriterOf(n.node) != nil || len(n.c.openWriters(idA)) != 0 {
		t.Error("the buffer of an exited process stays")
	}
	if got := n.s.content(idA); got != stored {
		t.Errorf("stored %q", got)
	}
}

// A record created through the node (CREATE: the kernel will send no
// RELEASE) is the creator's to commit; never written, its close fails.
func TestNodeWritesCreatedRecord(t *testing.T) {
	n := newNodeWriteTest(t)
	h, errno := n.c.createRecord(idA, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_EXCL)
	if errno != 0 {
		t.Fatal(errno)
	}
	n.c.adoptNodeWriter(n.self, n.node, h)
	if errno := n.c.flushThrough(n.self, n.node, nil); errno != syscall.EINVAL {
		t.Errorf("close of a new record never written = %v, want EINVAL", errno)
	}
	if _, errno := n.c.createRecord(idA, syscall.O_CREAT|syscall.O_EXCL); errno != syscall.EEXIST {
		t.Errorf("a second O_EXCL create while the creator holds the name = %v", errno)
	}
	n.write(n.self, recordOf(idA, "new"), 0)
	if errno := n.c.flushThrough(n.self, n.node, nil); errno != 0 {
		t.Fatal(errno)
	}
	if got := n.s.content(idA); got != recordOf(idA, "new") {
		t.Errorf("stored %q", got)
	}
}

// A READ without a handle through a node of one stored version, once
// another file is stored: served when no larger (the kernel takes the
// short read's size), refused with ESTALE when larger (it would be cut at
// the node's size); the node is retired either way.
func TestReadByNodeOfReplacedVersion(t *testing.T) {
	s := newFakeStore(t, idA)
	c := quietCollection(s)
	fi, err := s.StatRecord(idA)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := storedFileOfInfo(fi)
	retired := 0
	read := func() (string, syscall.Errno) {
		res, errno := c.readStored(idA, v, func() { retired++ }, make([]byte, 4096), 0)
		if errno != 0 {
			return "", errno
		}
		data, _ := res.Bytes(make([]byte, 4096))
		return string(data), 0
	}
	if got, errno := read(); errno != 0 || got != s.content(idA) || retired != 0 {
		t.Fatalf("read of the node's own version = %q, %v (retired %d)", got, errno, retired)
	}
	longer := `{"id":"` + idA + `","more":"x"}`
	s.PutRaw(idA, []byte(longer))
	if _, errno := read(); errno != syscall.ESTALE || retired != 1 {
		t.Errorf("read after a larger version was stored = %v (retired %d), want ESTALE", errno, retired)
	}
	shorter := `{"id":"` + idA + `"}`
	s.PutRaw(idA, []byte(shorter))
	if got, errno := read(); errno != 0 || got != shorter || retired != 2 {
		t.Errorf("read after a version no larger was stored = %q, %v (retired %d)", got, errno, retired)
	}
}

// The nodes a record is written through share one writer, whichever node
// the kernel gave each descriptor; once the record is unlinked, a new
// create of its id starts another while the old nodes keep theirs.
func TestNodeWritesShareTheRecordsWriter(t *testing.T) {
	n := newNodeWriteTest(t, idA)
	later := &gofs.Inode{} // the node of a later lookup (another stored version)
	n.write(n.self, recordOf(idA, "5"), 0)
	if _, errno := n.c.writeThrough(n.other, later, idA, []byte(`"6"`), int64(len(recordOf(idA, "5")))-4); errno != 0 {
		t.Fatal(errno)
	}
	if n.c.nodeWriterOf(later) != n.c.nodeWriterOf(n.node) {
		t.Fatal("two nodes of one record got two writers")
	}
	if errno := n.c.flushThrough(n.other, later, nil); errno != 0 {
		t.Fatal(errno)
	}
	if got := n.s.content(idA); got != recordOf(idA, "6") {
		t.Errorf("stored %q, want both writes", got)
	}

	n.write(n.self, recordOf(idA, "7"), 0)
	if errno := n.c.Unlink(n.self, idA+recordExt); errno != 0 {
		t.Fatal(errno)
	}
	h, errno := n.c.createRecord(idA, syscall.O_CREAT|syscall.O_WRONLY)
	if errno != 0 {
		t.Fatal(errno)
	}
	created := &gofs.Inode{}
	n.c.adoptNodeWriter(n.self, created, h)
	if n.c.nodeWriterOf(created) == n.c.nodeWriterOf(n.node) {
		t.Fatal("a new record shares the unlinked one's writer")
	}
	if errno := n.c.flushThrough(n.self, n.node, nil); errno != 0 {
		t.Errorf("close of the unlinked record's descriptor = %v", errno)
	}
	if got := n.s.content(idA); got != "<missing>" {
		t.Errorf("the unlinked record came back: %q", got)
	}
}

// Two processes write and close one record through one node at once: every
// close that returns success stored a whole record, a write never lands in
// a buffer already committed and let go (it would be lost), and once both
// are done no buffer is left and the write budget is whole again.
func TestNodeWritesConcurrentWritersLoseNothing(t *testing.T) {
	n := newNodeWriteTest(t, idA)
	done := make(chan syscall.Errno, 2)
	for i, ctx := range []context.Context{n.self, n.other} {
		go func() {
			for round := range 200 {
				content := recordOf(idA, fmt.Sprintf("%d-%03d", i, round))
				if errno := n.truncate(ctx, 0, false); errno != 0 {
					done <- errno
					return
				}
				if _, errno := n.c.writeThrough(ctx, n.node, idA, []byte(content), 0); errno != 0 {
					done <- errno
					return
				}
				n.c.flushThrough(ctx, n.node, nil) // may be refused: the other's half
			}
			done <- 0
		}()
	}
	for range 2 {
		if errno := <-done; errno != 0 {
			t.Fatalf("write: %v", errno)
		}
	}
	// A last whole record from each, closed: nothing may be pending after.
	for _, ctx := range []context.Context{n.self, n.other} {
		n.truncate(ctx, 0, false)
		n.c.writeThrough(ctx, n.node, idA, []byte(recordOf(idA, "end")), 0)
		if errno := n.c.flushThrough(ctx, n.node, nil); errno != 0 {
			t.Errorf("the last close: %v", errno)
		}
	}
	if got := n.s.content(idA); got != recordOf(idA, "end") {
		t.Errorf("stored %q", got)
	}
	n.c.sweepNodeWriters()
	if w := n.c.nodeWriterOf(n.node); w != nil {
		t.Errorf("a buffer is left: %+v", w.h.shown())
	}
	if used := n.c.m.budget.inUse(); used != 0 {
		t.Errorf("%d bytes of the write budget still in use", used)
	}
}

// A process the kernel cannot name to the mount (outside its pid
// namespace: mountFS marks it outsiderPid) owns what it writes like any
// other, its close commits, and the sweep never takes it as gone.
func TestNodeWritesOutsider(t *testing.T) {
	n := newNodeWriteTest(t, idA)
	outside := callerContext(int(outsiderPid))
	n.truncate(outside, 0, false)
	n.c.flushThrough(outside, n.node, nil) // the shell's early close: kept
	n.c.sweepNodeWriters()
	if n.c.nodeWriterOf(n.node) == nil {
		t.Fatal("the sweep let go an outsider's buffer")
	}
	if errno := n.write(outside, recordOf(idA, "out"), 0); errno != 0 {
		t.Fatal(errno)
	}
	if got := n.s.content(idA); got == recordOf(idA, "out") {
		t.Fatal("an outsider's write was committed before its close (taken as a write-back)")
	}
	if errno := n.c.flushThrough(outside, n.node, nil); errno != 0 {
		t.Fatal(errno)
	}
	if got := n.s.content(idA); got != recordOf(idA, "out") {
		t.Errorf("stored %q after the outsider's close", got)
	}
}

func TestNameOutsider(t *testing.T) {
	for _, c := range []struct {
		noOpen, fromProcess bool
		pid, want           uint32
	}{
		{true, true, 0, outsiderPid},
		{true, false, 0, 0}, // the kernel's write-back
		{true, true, 42, 42},
		{false, true, 0, 0}, // handles: ownership is not by process
	} {
		caller := fuse.Caller{Pid: c.pid}
		(&mountFS{noOpen: c.noOpen}).nameOutsider(&caller, c.fromProcess)
		if caller.Pid != c.want {
			t.Errorf("%+v: pid %d, want %d", c, caller.Pid, c.want)
		}
	}
}

// flushCounter is a node tree that counts the FLUSHes it is sent.
type flushCounter struct {
	fuse.RawFileSystem
	flushes int
}

func (f *flushCounter) Flush(cancel <-chan struct{}, in *fuse.FlushIn) fuse.Status {
	f.flushes++
	return fuse.OK
}

// Without OPEN a close reaches the node tree only while some node has a
// writer; a read-only mount refuses FLUSH for the connection, and a mount
// with handles sends every FLUSH on.
func TestFlushSkipsTheNodeTreeWhileNothingIsWritten(t *testing.T) {
	for _, c := range []struct {
		name            string
		noOpen, noFlush bool
		written         int64
		want            fuse.Status
		reachesNodeTree bool
	}{
		{"no-open, nothing written", true, false, 0, fuse.OK, false},
		{"no-open, a node written", true, false, 1, fuse.OK, true},
		{"read-only", true, true, 0, fuse.ENOSYS, false},
		{"handles", false, false, 0, fuse.OK, true},
	} {
		nodes := &flushCounter{RawFileSystem: fuse.NewDefaultRawFileSystem()}
		var written atomic.Int64
		written.Store(c.written)
		mfs := &mountFS{RawFileSystem: nodes, gate: &requestGate{}, noOpen: c.noOpen, noFlush: c.noFlush, writtenNodes: &written}
		if got := mfs.Flush(nil, &fuse.FlushIn{InHeader: fuse.InHeader{NodeId: 7}}); got != c.want {
			t.Errorf("%s: FLUSH = %v, want %v", c.name, got, c.want)
		}
		if reached := nodes.flushes > 0; reached != c.reachesNodeTree {
			t.Errorf("%s: the node tree got the FLUSH: %v, want %v", c.name, reached, c.reachesNodeTree)
		}
	}
}
