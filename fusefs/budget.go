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

// memBuf is unsaved file content: in memory (data, its capacity charged to
// budget) up to spillThreshold, beyond that in a spillFile (file, data nil).
// Not safe for concurrent use: its owner's mutex guards it.
type memBuf struct {
	budget  *memBudget
	data    []byte     // the content while file is nil
	charged int64      // == cap(data) once set through this type
	file    *spillFile // the content once spilled
}

func (m *memBuf) size() int {
	if m.file != nil {
		return int(m.file.size)
	}
	return len(m.data)
}

// readAt fills dest from off and returns the filled part.
func (m *memBuf) readAt(dest []byte, off int64) ([]byte, syscall.Errno) {
	if m.file != nil {
		return m.file.readAt(dest, off)
	}
	return sliceAt(m.data, dest, off), 0
}

// writeAt writes p at off, zero-filling a gap.
func (m *memBuf) writeAt(p []byte, off int64) syscall.Errno {
	end := off + int64(len(p))
	if off < 0 || end > maxFileSize {
		return syscall.EFBIG
	}
	if end > int64(m.size()) {
		if m.file != nil {
			if errno := m.committable(end); errno != 0 {
				return errno
			}
		} else if errno := m.resize(int(end)); errno != 0 {
			return errno
		}
	}
	if m.file != nil {
		return m.file.writeAt(p, off)
	}
	copy(m.data[off:], p)
	return 0
}

// committable refuses growing spilled content to size when committing
// that much could never fit in the budget: the writer learns it at
// write(2), not after writing it all, at close(2). (In-memory content is
// small; its commit is charged at close.)
func (m *memBuf) committable(size int64) syscall.Errno {
	spilled := m.budget.spillDir != "" && size > spillThreshold
	if spilled && minCommitCost(size, true) > m.budget.limit {
		return syscall.ENOSPC
	}
	return 0
}

// resize cuts the content or extends it with zero bytes.
func (m *memBuf) resize(size int) syscall.Errno {
	if size < 0 || size > maxFileSize {
		return syscall.EFBIG
	}
	if size > m.size() {
		if errno := m.committable(int64(size)); errno != 0 {
			return errno
		}
	}
	if m.file != nil {
		if size == 0 {
			m.file.close()
			m.file = nil
			return 0
		}
		return m.file.truncate(int64(size))
	}
	if size <= cap(m.data) {
		m.data = resize(m.data, size)
		return 0
	}
	if size > spillThreshold && m.budget.spillDir != "" {
		if errno := m.spill(); errno != 0 {
			return errno
		}
		return m.file.truncate(int64(size))
	}
	newCap := min(max(size, 2*cap(m.data)), maxFileSize)
	if m.budget.spillDir != "" {
		newCap = min(newCap, spillThreshold)
	}
	if errno := m.budget.chargeBuffer(int64(newCap) - m.charged); errno != 0 {
		if m.budget.spillDir == "" {
			return errno
		}
		if errno := m.spill(); errno != 0 {
			return errno
		}
		return m.file.truncate(int64(size))
	}
	grown := make([]byte, size, newCap)
	copy(grown, m.data)
	m.data, m.charged = grown, int64(newCap)
	return 0
}

// spill moves the in-memory content to a new spill file.
func (m *memBuf) spill() syscall.Errno {
	f, errno := createSpillFile(m.budget.spillDir)
	if errno != 0 {
		return errno
	}
	if errno := f.writeAt(m.data, 0); errno != 0 {
		f.close()
		return errno
	}
	m.freeMemory()
	m.file = f
	return 0
}

// set replaces the content with a copy of p.
func (m *memBuf) set(p []byte) syscall.Errno {
	if errno := m.resize(0); errno != 0 {
		return errno
	}
	return m.writeAt(p, 0)
}

// setFrom replaces the content with what r holds (at most maxFileSize
// bytes, else EFBIG), copied in pieces so a large file is never whole in
// memory outside the buffer.
func (m *memBuf) setFrom(r io.Reader) syscall.Errno {
	if errno := m.resize(0); errno != 0 {
		return errno
	}
	piece := make([]byte, 256<<10)
	var off int64
	for {
		n, err := io.ReadFull(r, piece)
		if n > 0 {
			if errno := m.writeAt(piece[:n], off); errno != 0 {
				return errno
			}
			off += int64(n)
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return 0
		case err != nil:
			return errnoOf(err, syscall.EIO)
		}
	}
}

// snapshot returns a copy of the content on the same budget (in memory or
// spilled like any memBuf); the caller frees it.
func (m *memBuf) snapshot() (*memBuf, syscall.Errno) {
	c := &memBuf{budget: m.budget}
	var errno syscall.Errno
	if m.file == nil {
		errno = c.set(m.data)
	} else {
		errno = c.setFrom(io.NewSectionReader(m.file.f, 0, m.file.size))
	}
	if errno != 0 {
		c.free()
		return nil, errno
	}
	return c, 0
}

// commit calls store with the whole content in memory (spilled content
// is read back for the call) while the estimated working memory of the
// commit is charged to the budget. name is the file, for the log. store
// must not keep the slice.
func (m *memBuf) commit(name string, store func(content []byte) syscall.Errno) syscall.Errno {
	cost, errno := m.commitCost()
	if errno != 0 {
		return errno
	}
	if errno := m.budget.reserveCommit(cost); errno != 0 {
		m.budget.log.Printf("commit %s refused: storing its %d bytes needs about %d MiB of memory, more than --max-buffer-mb leaves (%d MiB in use of %d MiB)",
			name, m.size(), cost>>20, m.budget.inUse()>>20, m.budget.limit>>20)
		return errno
	}
	defer m.budget.endCommit(cost)
	if m.file == nil {
		return store(m.data)
	}
	content, errno := m.file.readAll()
	if errno != 0 {
		return errno
	}
	return store(content)
}

// commitCost estimates the working memory of committing the content.
func (m *memBuf) commitCost() (int64, syscall.Errno) {
	var shape jsonShape
	if m.file == nil {
		shape.scan(m.data)
		return shape.parseCost(int64(len(m.data))), 0
	}
	piece := make([]byte, costScanPieces)
	for off := int64(0); off < m.file.size; off += int64(len(piece)) {
		p, errno := m.file.readAt(piece, off)
		if errno != 0 {
			return 0, errno
		}
		shape.scan(p)
	}
	return m.file.size + shape.parseCost(m.file.size), 0
}

// free drops the content and returns its memory to the budget.
func (m *memBuf) free() {
	m.freeMemory()
	if m.file != nil {
		m.file.close()
		m.file = nil
	}
}

func (m *memBuf) freeMemory() {
	charged := m.charged
	m.budget.chargeBuffer(-charged)
	m.data, m.charged = nil, 0
	m.budget.released(charged)
}

// sliceAt copies buf[off:] into dest and returns the filled part.
func sliceAt(buf, dest []byte, off int64) []byte {
	if off >= int64(len(buf)) || off < 0 {
		return dest[:0]
	}
	return dest[:copy(dest, buf[off:])]
}

// resize cuts buf or extends it with zero bytes (within its capacity when
// it can; the caller charges any growth).
func resize(buf []byte, size int) []byte {
	if size <= len(buf) {
		return buf[:size]
	}
	if size <= cap(buf) {
		old := len(buf)
		buf = buf[:size]
		clear(buf[old:])
		return buf
	}
	grown := make([]byte, size, max(size, 2*cap(buf)))
	copy(grown, buf)
	return grown
}
