package fusefs

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// writeHandle is one open-for-writing of a record: a private buffer,
// loaded from the stored record on first use unless truncated, committed
// through the store's PutRaw on flush (every close(2)) and fsync. The stored
// record is never touched before a commit succeeds. Commits are idempotent:
// only changes made since the last successful commit are committed.
type writeHandle struct {
	c     *collectionNode
	store RecordStore
	id    string

	mu     sync.Mutex
	buf    []byte
	loaded bool // buf holds the content to commit (stored content read, or truncated)
	dirty  bool // buf differs from what was last committed
	failed bool // the last commit was rejected; nothing changed since
	times  *fileTimes
}

var (
	_ fs.FileReader   = (*writeHandle)(nil)
	_ fs.FileWriter   = (*writeHandle)(nil)
	_ fs.FileFlusher  = (*writeHandle)(nil)
	_ fs.FileFsyncer  = (*writeHandle)(nil)
	_ fs.FileReleaser = (*writeHandle)(nil)
)

// load reads the stored record into buf once (a new record starts empty).
func (h *writeHandle) load() syscall.Errno {
	if h.loaded {
		return 0
	}
	content, errno := readAll(h.store, h.id)
	if errno == syscall.ENOENT {
		content, errno = nil, 0
	}
	if errno != 0 {
		return errno
	}
	h.buf, h.loaded = content, true
	return 0
}

func (h *writeHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if errno := h.load(); errno != 0 {
		return nil, errno
	}
	return fuse.ReadResultData(sliceAt(h.buf, dest, off)), 0
}

func (h *writeHandle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if errno := h.load(); errno != 0 {
		return 0, errno
	}
	buf, errno := writeAt(h.buf, data, off)
	if errno != 0 {
		return 0, errno
	}
	h.buf, h.dirty, h.failed = buf, true, false
	return uint32(len(data)), 0
}

func (h *writeHandle) truncate(size int) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	if size == 0 {
		h.buf, h.loaded = h.buf[:0], true
	} else {
		if errno := h.load(); errno != 0 {
			return errno
		}
		h.buf = resize(h.buf, size)
	}
	h.dirty, h.failed = true, false
	return 0
}

// setTimes keeps times for after the pending commit; it reports false when
// nothing is pending (the caller then applies them to the stored record).
func (h *writeHandle) setTimes(t *fileTimes) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.dirty {
		return false
	}
	h.times = t
	return true
}

// pending reports the buffer size when uncommitted changes exist that
// were not rejected yet (a rejected buffer is not shown to anyone).
func (h *writeHandle) pending() (int, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.buf), h.dirty && !h.failed
}

func (h *writeHandle) contents() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]byte(nil), h.buf...)
}

// Flush commits; its error is what close(2) returns.
func (h *writeHandle) Flush(ctx context.Context) syscall.Errno { return h.commit() }

func (h *writeHandle) Fsync(ctx context.Context, flags uint32) syscall.Errno { return h.commit() }

func (h *writeHandle) Release(ctx context.Context) syscall.Errno {
	h.c.releaseWriter(h)
	return 0
}

// commit stores the buffer if it changed. Afterwards, failed or not, the
// kernel's attributes and pages of the record are invalidated: the writer's
// truncations and writes may have left a size or pages the store does not
// hold. (The kernel holds no inode lock while a FLUSH or FSYNC is answered,
// so notifying from here cannot deadlock.)
func (h *writeHandle) commit() syscall.Errno {
	errno, changed := h.commitBuffer()
	if changed {
		if node := h.c.GetChild(h.id + recordExt); node != nil {
			node.NotifyContent(0, 0)
		}
	}
	return errno
}

func (h *writeHandle) commitBuffer() (errno syscall.Errno, attempted bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.dirty {
		return 0, false
	}
	if errno := h.load(); errno != 0 {
		return errno, false
	}
	if errno := h.c.put(h.store, h.id, h.buf, h.times); errno != 0 {
		h.failed = true
		return errno, true
	}
	h.dirty, h.times = false, nil
	return 0, true
}

// readHandle reads the stored record file.
type readHandle struct {
	f *os.File
}

var (
	_ fs.FileReader   = (*readHandle)(nil)
	_ fs.FileReleaser = (*readHandle)(nil)
)

func (h *readHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n, err := h.f.ReadAt(dest, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, errnoOf(err, syscall.EIO)
	}
	return fuse.ReadResultData(dest[:n]), 0
}

func (h *readHandle) Release(ctx context.Context) syscall.Errno {
	h.f.Close()
	return 0
}

// bufferReadHandle reads a snapshot of bytes (a record whose new content
// is still being written by another handle).
type bufferReadHandle struct {
	data []byte
}

var _ fs.FileReader = (*bufferReadHandle)(nil)

func (h *bufferReadHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return fuse.ReadResultData(sliceAt(h.data, dest, off)), 0
}

// readAll returns the stored bytes of record id.
func readAll(s RecordStore, id string) ([]byte, syscall.Errno) {
	f, err := s.OpenRecord(id)
	if err != nil {
		return nil, errnoOf(err, syscall.EIO)
	}
	defer f.Close()
	content, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, errnoOf(err, syscall.EIO)
	}
	if len(content) > maxFileSize {
		return nil, syscall.EFBIG
	}
	return content, 0
}

// sliceAt copies buf[off:] into dest and returns the filled part.
func sliceAt(buf, dest []byte, off int64) []byte {
	if off >= int64(len(buf)) || off < 0 {
		return dest[:0]
	}
	return dest[:copy(dest, buf[off:])]
}

// writeAt writes data at off, zero-filling a gap, within maxFileSize.
func writeAt(buf, data []byte, off int64) ([]byte, syscall.Errno) {
	end := off + int64(len(data))
	if off < 0 || end > maxFileSize {
		return buf, syscall.EFBIG
	}
	if end > int64(len(buf)) {
		buf = resize(buf, int(end))
	}
	copy(buf[off:], data)
	return buf, 0
}

// resize cuts buf or extends it with zero bytes.
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
