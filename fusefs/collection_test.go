package fusefs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/internal/fuseopts"
)

// Tests of a collection's write path: open writers, commits, rename, unlink,
// O_EXCL and O_TRUNC, the memory budget, scratch inodes, slow opens.

func recordOf(id, v string) string { return `{"id":"` + id + `","v":"` + v + `"}` }

// quietCollection is newTestCollection with kernel notifications dropped
// (the nodes are not attached to a mounted tree).
func quietCollection(s RecordStore) *collectionNode {
	c := newTestCollection(s)
	c.m.runNotify = func(func()) {}
	return c
}

func write(t *testing.T, h interface {
	Write(context.Context, []byte, int64) (uint32, syscall.Errno)
}, data string, off int64) {
	t.Helper()
	if _, errno := h.Write(context.Background(), []byte(data), off); errno != 0 {
		t.Fatalf("write %q at %d: %v", data, off, errno)
	}
}

func attrErrno(c *collectionNode, id string) (uint64, syscall.Errno) {
	var out fuse.AttrOut
	errno := c.recordAttrOut(id, &out)
	return out.Size, errno
}

// countingCatalog counts OpenDocStore calls and can fail removals.
type countingCatalog struct {
	fakeCatalog
	mu        sync.Mutex
	opens     int
	removeErr error
	removed   int
}

func (c *countingCatalog) OpenDocStore(rel string, ro bool) (RecordStore, error) {
	c.mu.Lock()
	c.opens++
	c.mu.Unlock()
	return c.store, nil
}

func (c *countingCatalog) RemoveDocStore(rel string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.removeErr != nil {
		return c.removeErr
	}
	c.removed++
	return nil
}

func collectionWith(cat Catalog, budget int64) *collectionNode {
	m := newMountState(cat, false, log.New(io.Discard, "", 0), budget)
	m.runNotify = func(func()) {}
	return &collectionNode{m: m, rel: "c"}
}

// A failed rmdir must not close the store under open writers.
func TestRmdirKeepsOpenWriters(t *testing.T) {
	s := newFakeStore(t, idA)
	cat := &countingCatalog{fakeCatalog: fakeCatalog{store: s}, removeErr: fmt.Errorf("c: %w", syscall.ENOTEMPTY)}
	c := collectionWith(cat, 0)
	h := c.openWriter(idA, s, true)
	write(t, h, recordOf(idA, "2"), 0)

	if errno := c.m.removeCollection("c", c); errno != syscall.EBUSY {
		t.Errorf("rmdir with an open writer = %v, want EBUSY", errno)
	}
	if errno, _ := h.commitBuffer(); errno != 0 {
		t.Fatalf("commit after refused rmdir: %v", errno)
	}
	if got := s.content(idA); got != recordOf(idA, "2") {
		t.Errorf("stored %q", got)
	}
	h.Release(context.Background())

	// The removal itself fails (not empty): the store stays open.
	if errno := c.m.removeCollection("c", c); errno != syscall.ENOTEMPTY {
		t.Errorf("rmdir of a non-empty collection = %v, want ENOTEMPTY", errno)
	}
	h2 := c.openWriter(idA, s, true)
	write(t, h2, recordOf(idA, "3"), 0)
	if errno, _ := h2.commitBuffer(); errno != 0 {
		t.Fatalf("commit after failed rmdir: %v", errno)
	}
	h2.Release(context.Background())
}

// After rmdir the node neither reopens the store (which
// would recreate C/.storh/writers) nor commits.
func TestRemovedCollectionRefusesEverything(t *testing.T) {
	s := newFakeStore(t)
	cat := &countingCatalog{fakeCatalog: fakeCatalog{store: s}}
	c := collectionWith(cat, 0)
	if _, errno := c.store(); errno != 0 {
		t.Fatal(errno)
	}
	if errno := c.m.removeCollection("c", c); errno != 0 {
		t.Fatalf("rmdir: %v", errno)
	}
	if !s.closed {
		t.Errorf("store not closed after rmdir")
	}
	opens := cat.opens
	if _, errno := attrErrno(c, idA); errno != syscall.ENOENT {
		t.Errorf("stat in a removed collection = %v, want ENOENT", errno)
	}
	if _, errno := c.createRecord(idA, syscall.O_CREAT); errno != syscall.ENOENT {
		t.Errorf("create in a removed collection = %v, want ENOENT", errno)
	}
	if cat.opens != opens {
		t.Errorf("a removed collection was reopened (%d opens)", cat.opens-opens)
	}
}

// A closed store is an I/O error, not a content rejection.
func TestCommitOnClosedStoreIsEIO(t *testing.T) {
	s := newFakeStore(t)
	c := quietCollection(s)
	h := c.openWriter(idA, s, true)
	write(t, h, recordOf(idA, "1"), 0)
	s.Close()
	if errno, _ := h.commitBuffer(); errno != syscall.EIO {
		t.Errorf("commit on a closed store = %v, want EIO", errno)
	}
}

// EINVAL only for rejected content.
func TestCommitErrnoClasses(t *testing.T) {
	cases := []struct {
		name string
		fail error
		want syscall.Errno
	}{
		{"disk full", &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, syscall.ENOSPC},
		{"internal", errors.New("index drifted"), syscall.EIO},
		{"directory fsync", fmt.Errorf("record stored: %w: data/aa: %w", fsutil.ErrDirSync, errors.New("injected")), syscall.EIO},
		{"rejected", fmt.Errorf("bad: %w", ErrRejected), syscall.EINVAL},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeStore(t)
			s.failPuts = tc.fail
			c := quietCollection(s)
			h := c.openWriter(idA, s, true)
			write(t, h, recordOf(idA, "1"), 0)
			if errno, _ := h.commitBuffer(); errno != tc.want {
				t.Errorf("commit = %v, want %v", errno, tc.want)
			}
		})
	}
}

// Writes through a descriptor still open on a scratch file
// after it was renamed onto a record are committed to that record.
func TestWritesAfterRenameReachTheRecord(t *testing.T) {
	ctx := context.Background()
	s := newFakeStore(t, idA)
	c := quietCollection(s)
	sf, errno := c.createScratch("x.tmp", syscall.O_CREAT)
	if errno != 0 {
		t.Fatal(errno)
	}
	fh := c.openScratch(sf)
	write(t, fh, recordOf(idA, "1"), 0)
	if errno := c.Rename(ctx, "x.tmp", c, idA+recordExt, 0); errno != 0 {
		t.Fatalf("rename: %v", errno)
	}
	if got := s.content(idA); got != recordOf(idA, "1") {
		t.Fatalf("after rename stored %q", got)
	}
	write(t, fh, recordOf(idA, "2"), 0)
	if errno := fh.Flush(ctx); errno != 0 {
		t.Fatalf("flush after rename: %v", errno)
	}
	if got := s.content(idA); got != recordOf(idA, "2") {
		t.Errorf("write after rename was lost: stored %q", got)
	}
	fh.Release(ctx)
	if n := len(c.openWriters(idA)); n != 0 {
		t.Errorf("%d writers left after release", n)
	}
	if used := c.m.budget.inUse(); used != 0 {
		t.Errorf("%d bytes still charged after release", used)
	}
}

// A created record stays visible while its creator is open, an
// intermediate close of a never-written one does not hide it, and O_EXCL
// sees it.
func TestCreatedRecordStaysVisible(t *testing.T) {
	s := newFakeStore(t)
	c := quietCollection(s)
	h, errno := c.createRecord(idA, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY)
	if errno != 0 {
		t.Fatal(errno)
	}
	// close(2) of a dup'd descriptor before anything was written.
	if errno, _ := h.commitBuffer(); errno != syscall.EINVAL {
		t.Errorf("flush of a never-written new record = %v, want EINVAL", errno)
	}
	if s.puts != 0 {
		t.Errorf("an empty new record was committed")
	}
	if _, errno := attrErrno(c, idA); errno != 0 {
		t.Errorf("stat while the creator is open = %v, want the record shown", errno)
	}
	if _, errno := c.createRecord(idA, syscall.O_CREAT|syscall.O_EXCL); errno != syscall.EEXIST {
		t.Errorf("second O_EXCL create = %v, want EEXIST", errno)
	}
	write(t, h, recordOf(idA, "1"), 0)
	if size, errno := attrErrno(c, idA); errno != 0 || size != uint64(len(recordOf(idA, "1"))) {
		t.Errorf("stat after write = %d, %v", size, errno)
	}
	if errno, _ := h.commitBuffer(); errno != 0 {
		t.Fatalf("commit: %v", errno)
	}
	h.Release(context.Background())
	if got := s.content(idA); got != recordOf(idA, "1") {
		t.Errorf("stored %q", got)
	}
}

// `touch new.jsonc` leaves no phantom name behind.
func TestNeverWrittenNewRecordLeavesNoName(t *testing.T) {
	s := newFakeStore(t)
	c := quietCollection(s)
	h, errno := c.createRecord(idA, syscall.O_CREAT|syscall.O_WRONLY)
	if errno != 0 {
		t.Fatal(errno)
	}
	var in fuse.SetAttrIn
	in.Valid = fuse.FATTR_MTIME | fuse.FATTR_ATIME
	var out fuse.AttrOut
	if errno := c.setRecordAttr(context.Background(), nil, idA, h, &in, &out); errno != 0 {
		t.Errorf("futimens on the new record: %v", errno)
	}
	if errno, _ := h.commitBuffer(); errno != syscall.EINVAL {
		t.Errorf("close = %v, want EINVAL", errno)
	}
	h.Release(context.Background())
	if _, errno := attrErrno(c, idA); errno != syscall.ENOENT {
		t.Errorf("after the last close stat = %v, want ENOENT", errno)
	}
}

// An O_EXCL create fails at commit when the record appeared
// meanwhile (another process), instead of overwriting it.
func TestExclusiveCreateChecksAtCommit(t *testing.T) {
	s := newFakeStore(t)
	c := quietCollection(s)
	h, errno := c.createRecord(idA, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY)
	if errno != 0 {
		t.Fatal(errno)
	}
	write(t, h, recordOf(idA, "mine"), 0)
	if err := s.PutRaw(idA, []byte(recordOf(idA, "theirs"))); err != nil {
		t.Fatal(err)
	}
	if errno, _ := h.commitBuffer(); errno != syscall.EEXIST {
		t.Errorf("commit = %v, want EEXIST", errno)
	}
	if got := s.content(idA); got != recordOf(idA, "theirs") {
		t.Errorf("stored %q, the other writer's record was overwritten", got)
	}
}

// Rm while a writer is open does not bring the record back.
func TestUnlinkOrphansOpenWriters(t *testing.T) {
	ctx := context.Background()
	for _, stored := range []bool{true, false} {
		t.Run(fmt.Sprintf("stored=%v", stored), func(t *testing.T) {
			s := newFakeStore(t)
			if stored {
				s = newFakeStore(t, idA)
			}
			c := quietCollection(s)
			h, errno := c.createRecord(idA, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_TRUNC)
			if errno != 0 {
				t.Fatal(errno)
			}
			write(t, h, recordOf(idA, "2"), 0)
			if errno := c.Unlink(ctx, idA+recordExt); errno != 0 {
				t.Fatalf("unlink: %v", errno)
			}
			if errno := h.Flush(ctx); errno != 0 {
				t.Errorf("close after unlink = %v, want success", errno)
			}
			h.Release(ctx)
			if got := s.content(idA); got != "<missing>" {
				t.Errorf("record came back: %q", got)
			}
			if _, errno := attrErrno(c, idA); errno != syscall.ENOENT {
				t.Errorf("stat after unlink = %v", errno)
			}
		})
	}
}

// Open(O_TRUNC) empties only the descriptor opened with it.
// The mount negotiates ATOMIC_O_TRUNC, so the flag arrives with the OPEN
// instead of as a SETATTR(size=0) without a handle, which could only be
// applied to every writer of the record.
func TestOpenTruncLeavesOtherWritersAlone(t *testing.T) {
	opts := fuseopts.Options(fuseopts.Settings{Logger: log.New(io.Discard, "", 0)})
	if opts.ExtraCapabilities&fuse.CAP_ATOMIC_O_TRUNC == 0 {
		t.Errorf("ATOMIC_O_TRUNC not negotiated: open(O_TRUNC) would truncate every writer")
	}
	s := newFakeStore(t, idA)
	c := quietCollection(s)
	h1 := c.openWriter(idA, s, false)
	write(t, h1, recordOf(idA, "1"), 0)
	h2 := c.openWriter(idA, s, true)
	if got := contentsOf(t, h1); got != recordOf(idA, "1") {
		t.Errorf("first writer's buffer = %q after another open(O_TRUNC)", got)
	}
	if got := contentsOf(t, h2); got != "" {
		t.Errorf("O_TRUNC writer's buffer = %q", got)
	}
	// truncate(2) by path (no handle) applies to every open buffer.
	var in fuse.SetAttrIn
	in.Valid = fuse.FATTR_SIZE
	var out fuse.AttrOut
	if errno := c.setRecordAttr(context.Background(), nil, idA, nil, &in, &out); errno != 0 {
		t.Fatal(errno)
	}
	if got := contentsOf(t, h1); got != "" {
		t.Errorf("truncate by path left %q", got)
	}
}

// One budget across write buffers and scratch files.
func TestMemoryBudget(t *testing.T) {
	ctx := context.Background()
	s := newFakeStore(t)
	c := collectionWith(fakeCatalog{store: s}, 1<<20)
	c.m.budget.spillDir = "" // all in memory: the budget alone decides (budget_test.go covers spilling)
	h := c.openWriter(idA, s, true)
	chunk := make([]byte, 600<<10)
	if _, errno := h.Write(ctx, chunk, 0); errno != 0 {
		t.Fatal(errno)
	}
	sf, _ := c.createScratch("x.tmp", syscall.O_CREAT)
	fh := c.openScratch(sf)
	if _, errno := fh.Write(ctx, chunk, 0); errno != syscall.ENOSPC {
		t.Errorf("scratch write over the budget = %v, want ENOSPC", errno)
	}
	if _, errno := h.Write(ctx, []byte("x"), maxFileSize); errno != syscall.EFBIG {
		t.Errorf("write past the record cap = %v, want EFBIG", errno)
	}
	h.Release(ctx)
	if _, errno := fh.Write(ctx, chunk, 0); errno != 0 {
		t.Errorf("scratch write after the writer released its memory: %v", errno)
	}
	if errno := c.Unlink(ctx, "x.tmp"); errno != 0 {
		t.Fatal(errno)
	}
	if c.m.budget.inUse() == 0 {
		t.Errorf("memory of an unlinked but open scratch file was freed")
	}
	fh.Release(ctx)
	if used := c.m.budget.inUse(); used != 0 {
		t.Errorf("%d bytes charged after everything closed", used)
	}
}

// A handle is fully initialised before other goroutines see it
// (run with -race).
func TestWriterPublishedInitialised(t *testing.T) {
	s := newFakeStore(t)
	c := quietCollection(s)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			c.pendingSize(idA)
			c.createdWriter(idA)
		}
	}()
	for i := 0; i < 200; i++ {
		h, errno := c.createRecord(idA, syscall.O_CREAT|syscall.O_TRUNC)
		if errno != 0 {
			t.Fatal(errno)
		}
		h.Release(context.Background())
	}
	<-done
}

// Scratch inode numbers do not wrap after 2^24 files and stay
// out of the record and directory ranges.
func TestScratchInodesDoNotWrap(t *testing.T) {
	c := quietCollection(newFakeStore(t))
	first, _ := c.createScratch("a.tmp", syscall.O_CREAT)
	c.m.scratchSeq.Add(1<<24 - 1)
	second, _ := c.createScratch("b.tmp", syscall.O_CREAT)
	if first.ino == second.ino {
		t.Errorf("scratch inode %#x reused after 2^24 files", first.ino)
	}
	for _, ino := range []uint64{first.ino, second.ino} {
		if ino&scratchInoBase == 0 {
			t.Errorf("scratch inode %#x outside the scratch range", ino)
		}
	}
}

// slowCatalog blocks opening collection "slow" until released; entered
// receives once the open has begun.
type slowCatalog struct {
	fakeCatalog
	entered chan struct{}
	release chan struct{}
}

func (c slowCatalog) OpenDocStore(rel string, ro bool) (RecordStore, error) {
	if rel == "slow" {
		select {
		case c.entered <- struct{}{}:
		default:
		}
		<-c.release
	}
	return c.store, nil
}

// Opening (sweeping) one collection does not block others.
func TestSlowOpenDoesNotBlockOtherCollections(t *testing.T) {
	cat := slowCatalog{fakeCatalog: fakeCatalog{store: newFakeStore(t)}, entered: make(chan struct{}, 1), release: make(chan struct{})}
	m := newMountState(cat, false, log.New(io.Discard, "", 0), 0)
	go m.store("slow")
	select {
	case <-cat.entered:
	case <-time.After(5 * time.Second):
		close(cat.release)
		t.Fatal("the slow open never began")
	}
	got := make(chan error, 1)
	go func() { _, err := m.store("fast"); got <- err }()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Errorf("opening one collection waited for another's open")
	}
	close(cat.release)
	if _, err := m.store("slow"); err != nil {
		t.Fatal(err)
	}
}

func contentsOf(t *testing.T, h *writeHandle) string {
	t.Helper()
	buf, errno := h.snapshot()
	if errno != 0 {
		t.Fatalf("snapshot: %v", errno)
	}
	defer buf.free()
	content, errno := buf.bytes()
	if errno != 0 {
		t.Fatalf("snapshot bytes: %v", errno)
	}
	return string(content)
}

// A create of a name whose previous create was refused succeeds, and is
// the name's creator, although the refused handle is still registered
// (RELEASE comes after close(2) returns, asynchronously): `dd` of 1 GB
// failed, then the next open(O_CREAT) of that name got ENOENT.
func TestCreateAfterRefusedCreateBeforeItsRelease(t *testing.T) {
	s := newFakeStore(t)
	c := quietCollection(s)
	refused, errno := c.createRecord(idA, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_TRUNC)
	if errno != 0 {
		t.Fatal(errno)
	}
	write(t, refused, "not a record", 0)
	if errno, _ := refused.commitBuffer(); errno != syscall.EINVAL {
		t.Fatalf("refused commit = %v, want EINVAL", errno)
	}
	h, errno := c.createRecord(idA, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_TRUNC)
	if errno != 0 {
		t.Fatal(errno)
	}
	var entry fuse.EntryOut
	if _, errno := c.recordEntry(idA, &entry, nil); errno != 0 {
		t.Errorf("lookup of the name being created again = %v, want it shown", errno)
	}
	write(t, h, recordOf(idA, "2"), 0)
	if errno, _ := h.commitBuffer(); errno != 0 {
		t.Errorf("commit of the second create = %v", errno)
	}
	refused.Release(context.Background())
	h.Release(context.Background())
	if got := s.content(idA); got != recordOf(idA, "2") {
		t.Errorf("stored %q", got)
	}
}
