package fusefs

import (
	"fmt"
	"io"
	"syscall"
)

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
	f, err := createSpillFile(m.budget.spillDir)
	if err != nil {
		m.budget.log.Printf("write buffer: %v", err)
		return errnoOf(err, syscall.EIO)
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
// commit is charged to the budget; store must not keep the slice. A
// commit the budget can never hold fails with ENOSPC and the reason.
func (m *memBuf) commit(store func(content []byte) (syscall.Errno, error)) (syscall.Errno, error) {
	cost, errno := m.commitCost()
	if errno != 0 {
		return errno, nil
	}
	if errno := m.budget.reserveCommit(cost); errno != 0 {
		return errno, fmt.Errorf("storing its %d bytes needs about %d MiB of memory, more than --max-buffer-mb leaves (%d MiB in use of %d MiB)",
			m.size(), cost>>20, m.budget.inUse()>>20, m.budget.limit>>20)
	}
	defer m.budget.endCommit(cost)
	if m.file == nil {
		return store(m.data)
	}
	content, errno := m.file.readAll()
	if errno != 0 {
		return errno, nil
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
