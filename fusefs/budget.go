package fusefs

import (
	"sync"
	"syscall"
)

// DefaultMaxBufferBytes is the memory one mount may hold in write buffers
// and scratch files together when Config.MaxBufferBytes is 0.
const DefaultMaxBufferBytes = 512 << 20

// maxFileSize bounds one in-memory file (write buffer or scratch file): the
// record size cap. Writing past it fails with EFBIG.
const maxFileSize = 64 << 20

// memBudget is the mount-wide allowance for in-memory file content. Every
// memBuf charges its capacity here; exceeding the limit fails with ENOSPC.
type memBudget struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

func newMemBudget(limit int64) *memBudget {
	if limit <= 0 {
		limit = DefaultMaxBufferBytes
	}
	return &memBudget{limit: limit}
}

// adjust charges delta bytes (negative releases); it refuses a charge that
// would exceed the limit.
func (b *memBudget) adjust(delta int64) syscall.Errno {
	b.mu.Lock()
	defer b.mu.Unlock()
	if delta > 0 && b.used+delta > b.limit {
		return syscall.ENOSPC
	}
	b.used += delta
	return 0
}

func (b *memBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// memBuf is file content held in memory, its capacity charged to a budget.
// Not safe for concurrent use: its owner's mutex guards it.
type memBuf struct {
	budget  *memBudget
	data    []byte
	charged int64 // == cap(data) once set through this type
}

// writeAt writes p at off, zero-filling a gap.
func (m *memBuf) writeAt(p []byte, off int64) syscall.Errno {
	end := off + int64(len(p))
	if off < 0 || end > maxFileSize {
		return syscall.EFBIG
	}
	if end > int64(len(m.data)) {
		if errno := m.resize(int(end)); errno != 0 {
			return errno
		}
	}
	copy(m.data[off:], p)
	return 0
}

// resize cuts the content or extends it with zero bytes.
func (m *memBuf) resize(size int) syscall.Errno {
	if size < 0 || size > maxFileSize {
		return syscall.EFBIG
	}
	if size <= cap(m.data) {
		m.data = resize(m.data, size)
		return 0
	}
	newCap := min(max(size, 2*cap(m.data)), maxFileSize)
	if errno := m.budget.adjust(int64(newCap) - m.charged); errno != 0 {
		return errno
	}
	grown := make([]byte, size, newCap)
	copy(grown, m.data)
	m.data, m.charged = grown, int64(newCap)
	return 0
}

// set replaces the content with a copy of p.
func (m *memBuf) set(p []byte) syscall.Errno {
	m.data = m.data[:0]
	return m.writeAt(p, 0)
}

// free drops the content and returns its memory to the budget.
func (m *memBuf) free() {
	m.budget.adjust(-m.charged)
	m.data, m.charged = nil, 0
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
