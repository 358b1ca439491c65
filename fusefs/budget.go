package fusefs

import (
	"io"
	"log"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
)

// DefaultMaxBufferBytes is the memory one mount may hold in write buffers,
// scratch files and commits together when Config.MaxBufferBytes is 0.
const DefaultMaxBufferBytes = 512 << 20

// maxFileSize bounds one unsaved file (write buffer or scratch file): the
// record size cap. Writing past it fails with EFBIG.
const maxFileSize = 64 << 20

// spillThreshold is the largest content a memBuf keeps in memory when its
// budget has a spill directory; larger content moves to a spillFile.
const spillThreshold = 1 << 20

// returnThreshold: once this much memory was released, the freed heap is
// handed back to the operating system (see memBudget.released).
const returnThreshold = 8 << 20

// memorySlack is what a mount process may hold beyond its budget: the Go
// runtime, caches, request buffers and garbage.
const memorySlack = 64 << 20

// SoftMemoryLimit is the Go runtime memory limit (debug.SetMemoryLimit) for
// a process serving one mount with budget maxBufferBytes (0: the default):
// the collector then runs before garbage takes the process past it.
func SoftMemoryLimit(maxBufferBytes int64) int64 {
	if maxBufferBytes <= 0 {
		maxBufferBytes = DefaultMaxBufferBytes
	}
	return maxBufferBytes + memorySlack
}

// memBudget is the mount-wide allowance for memory that holds unsaved file
// content or a commit's working copy. Every in-memory memBuf charges its
// capacity here, every commit its estimated working memory (memBuf.commit,
// commitcost.go); a charge that would exceed the limit fails with ENOSPC,
// and so does growing a file past what could be committed within the
// limit (committable). Content spilled to a file (spillDir) is not memory
// and is not charged: the disk bounds it. With a spill directory,
// in-memory buffers take at most half the limit (the rest is for commits
// and keeps the collector's work bounded); past that, content spills.
type memBudget struct {
	spillDir string      // "" keeps all content in memory
	log      *log.Logger // commits refused for their size

	mu        sync.Mutex
	committed *sync.Cond // broadcast when a commit's reservation ends
	limit     int64
	used      int64 // in-memory buffers plus commit reservations
	buffers   int64 // in-memory buffers alone
	commits   int   // commits holding a reservation

	unreturned atomic.Int64 // bytes released since the last return to the OS
	returning  atomic.Bool  // a return of freed memory to the OS is queued
}

func newMemBudget(limit int64, spillDir string, logger *log.Logger) *memBudget {
	if limit <= 0 {
		limit = DefaultMaxBufferBytes
	}
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	b := &memBudget{limit: limit, spillDir: spillDir, log: logger}
	b.committed = sync.NewCond(&b.mu)
	return b
}

// chargeBuffer charges delta bytes of in-memory buffer capacity (negative
// releases); it refuses a charge that would exceed the limit, or with a
// spill directory half of it (the caller then spills).
func (b *memBudget) chargeBuffer(delta int64) syscall.Errno {
	b.mu.Lock()
	defer b.mu.Unlock()
	if delta > 0 && (b.used+delta > b.limit || b.spillDir != "" && b.buffers+delta > b.limit/2) {
		return syscall.ENOSPC
	}
	b.used += delta
	b.buffers += delta
	return 0
}

func (b *memBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// reserveCommit charges a commit's working memory, waiting while other
// commits hold what it needs. It fails with ENOSPC when the charge does not
// fit even with no other commit running. Waiters hold no reservation, and
// reservations end without waiting on a reservation, so this cannot
// deadlock; lock order: file mutex, reserveCommit, collection commitMu.
func (b *memBudget) reserveCommit(cost int64) syscall.Errno {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.used+cost > b.limit {
		if b.commits == 0 {
			return syscall.ENOSPC
		}
		b.committed.Wait()
	}
	b.used += cost
	b.commits++
	return 0
}

func (b *memBudget) endCommit(cost int64) {
	b.mu.Lock()
	b.used -= cost
	b.commits--
	b.committed.Broadcast()
	b.mu.Unlock()
	b.released(cost)
}

// released notes that n bytes of heap became garbage. Once enough was
// released, the Go runtime is asked, in the background, to collect and
// hand the memory back to the OS at once: without that, the garbage of an
// idle mount stays resident until the next periodic collection and
// scavenge (675 MiB still held 10 s after 8 large writes closed).
func (b *memBudget) released(n int64) {
	if b.unreturned.Add(n) < returnThreshold || !b.returning.CompareAndSwap(false, true) {
		return
	}
	go func() {
		b.unreturned.Store(0)
		b.returning.Store(false)
		debug.FreeOSMemory()
	}()
}

// minCommitCost is the least working memory of committing size bytes:
// the copies (commitcost.go) and, for spilled content, the read-back copy.
func minCommitCost(size int64, spilled bool) int64 {
	cost := costCopies * size
	if spilled {
		cost += size
	}
	return cost
}
