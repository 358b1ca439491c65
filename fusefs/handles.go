package fusefs

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// writeHandle is one open-for-writing of a record: a private buffer,
// loaded from the stored record on first use unless truncated, committed
// through the store's PutRaw on flush (every close(2)) and fsync. The stored
// record is never touched before a commit succeeds. Commits are idempotent:
// only changes made since the last successful commit are committed.
//
// A handle that created the record (created) shows it, with the buffer's
// size, for as long as it is open and the record is not stored, so fstat
// and a second O_EXCL see it. Once its record is unlinked (orphaned) the
// handle keeps working on its buffer but commits nothing, like a file
// written after its last name is gone.
type writeHandle struct {
	c     *collectionNode
	store RecordStore
	id    string

	created   bool // this open created the record name (immutable)
	orphaned  atomic.Bool
	exclusive bool // O_EXCL: the first commit must create the record; guarded by mu

	mu     sync.Mutex
	buf    memBuf
	loaded bool // buf holds the content to commit (stored content read, or truncated)
	dirty  bool // buf differs from what was last committed
	failed bool // the last commit was rejected; nothing changed since
	stored bool // a commit of this handle succeeded
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
	if errno := h.buf.set(content); errno != 0 {
		return errno
	}
	h.loaded = true
	return 0
}

func (h *writeHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if errno := h.load(); errno != 0 {
		return nil, errno
	}
	return fuse.ReadResultData(sliceAt(h.buf.data, dest, off)), 0
}

func (h *writeHandle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if errno := h.load(); errno != 0 {
		return 0, errno
	}
	if errno := h.buf.writeAt(data, off); errno != 0 {
		return 0, errno
	}
	h.dirty, h.failed = true, false
	return uint32(len(data)), 0
}

func (h *writeHandle) truncate(size int) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	if size == 0 {
		h.buf.data, h.loaded = h.buf.data[:0], true
	} else {
		if errno := h.load(); errno != 0 {
			return errno
		}
		if errno := h.buf.resize(size); errno != 0 {
			return errno
		}
	}
	h.dirty, h.failed = true, false
	return 0
}

// setTimes keeps times for after the pending commit; it reports false when
// nothing is pending (the caller then applies them to the stored record).
func (h *writeHandle) setTimes(t *fileTimes) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.dirty && !h.unstoredNew() {
		return false
	}
	h.times = t
	return true
}

// unstoredNew reports a record this handle created and never stored.
func (h *writeHandle) unstoredNew() bool { return h.created && !h.stored }

// shown reports what this handle makes of its record's name: size is the
// buffer's; pending means uncommitted changes not rejected yet (they win
// over the stored file); created means the handle holds a new name the
// store may not have yet.
func (h *writeHandle) shown() (size int, pending, created bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.buf.data), h.dirty && !h.failed, h.unstoredNew()
}

func (h *writeHandle) contents() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]byte(nil), h.buf.data...)
}

// Flush commits; its error is what close(2) returns.
func (h *writeHandle) Flush(ctx context.Context) syscall.Errno { return h.commit() }

func (h *writeHandle) Fsync(ctx context.Context, flags uint32) syscall.Errno { return h.commit() }

func (h *writeHandle) Release(ctx context.Context) syscall.Errno {
	h.c.releaseWriter(h)
	h.mu.Lock()
	h.buf.free()
	h.mu.Unlock()
	return 0
}

// commit stores the buffer if it changed. Afterwards, failed or not, the
// kernel's attributes and pages of the record are invalidated: the writer's
// truncations and writes may have left a size or pages the store does not
// hold. The invalidation is queued, not sent from this handler: it locks
// page-cache folios that a READ in flight holds (notifier.go).
func (h *writeHandle) commit() syscall.Errno {
	errno, changed := h.commitBuffer()
	if changed {
		if node := h.c.GetChild(h.id + recordExt); node != nil {
			h.c.m.notify(func() { node.NotifyContent(0, 0) })
		}
	}
	return errno
}

// commitBuffer stores the buffer when it holds changes. A record created by
// this handle and never written is not stored: an empty file is not a
// record, so such a flush fails with EINVAL and changes nothing (the name
// stays shown while the handle is open and is gone after the last close).
// A FLUSH cannot tell the last close(2) from one of a dup'd descriptor, so
// every close of such a descriptor reports EINVAL: `touch new.jsonc` fails
// visibly instead of pretending to have stored something.
func (h *writeHandle) commitBuffer() (errno syscall.Errno, attempted bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.dirty {
		if h.unstoredNew() && !h.orphaned.Load() {
			h.c.m.log.Printf("close %s/%s%s: nothing written; an empty file is not a record, nothing stored", h.c.rel, h.id, recordExt)
			return syscall.EINVAL, false
		}
		return 0, false
	}
	if errno := h.load(); errno != 0 {
		return errno, false
	}
	errno = h.c.commitWriter(h, h.buf.data, h.times, h.exclusive && !h.stored)
	if errno != 0 {
		h.failed = true
		return errno, true
	}
	h.dirty, h.stored, h.times = false, true, nil
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
