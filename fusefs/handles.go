package fusefs

import (
	"context"
	"errors"
	"io"
	iofs "io/fs"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/internal/fuseattr"
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

	// holds is shown().holds(), kept in step under mu (publishLocked), for
	// the registry, which may not take mu (lock order: mu, then c.mu).
	holds atomic.Bool

	mu      sync.Mutex
	buf     memBuf
	loaded  bool           // buf holds the content to commit (stored content read, or truncated)
	dirty   bool           // buf differs from what was last committed
	failure *commitFailure // why the last commit failed; nil when it did not, or buf changed since
	stored  bool           // a commit of this handle succeeded
	times   *fileTimes
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
	var errno syscall.Errno
	f, err := h.store.OpenRecord(h.id)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		errno = h.buf.set(nil)
	case err != nil:
		errno = errnoOf(err, syscall.EIO)
	default:
		errno = h.buf.setFrom(f)
		f.Close()
	}
	if errno != 0 {
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
	data, errno := h.buf.readAt(dest, off)
	if errno != 0 {
		return nil, errno
	}
	return fuse.ReadResultData(data), 0
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
	h.dirty, h.failure = true, nil
	h.publishLocked()
	return uint32(len(data)), 0
}

func (h *writeHandle) truncate(size int) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	if size == 0 {
		if errno := h.buf.resize(0); errno != 0 {
			return errno
		}
		h.loaded = true
	} else {
		if errno := h.load(); errno != 0 {
			return errno
		}
		if errno := h.buf.resize(size); errno != 0 {
			return errno
		}
	}
	h.dirty, h.failure = true, nil
	h.publishLocked()
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

// settled reports whether the buffer holds nothing a later close could
// commit or refuse: stored (or orphaned), and not a new record unwritten.
func (h *writeHandle) settled() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failure == nil && !h.dirty && !h.unstoredNew()
}

// unstoredNew reports a record this handle created and never stored.
func (h *writeHandle) unstoredNew() bool { return h.created && !h.stored }

// handleView is what one write handle makes of its record's name.
type handleView struct {
	size     int  // the buffer's
	pending  bool // uncommitted changes not refused yet: they win over the stored file
	created  bool // the handle holds a new name the store may not have yet
	refused  bool // the last commit failed and nothing changed since
	rejected bool // that commit had content (refused, not merely empty)
}

// named reports whether the handle gives its record's name to lookups: a
// new record whose commit failed has no name, although its descriptors
// (fstat) still see it.
func (v handleView) named() bool { return v.pending || v.created && !v.refused }

// holds reports whether the handle keeps its record's name from other
// creates (O_EXCL fails, another create is not the creator) and shows its
// buffer to readers while the store has no record: until content it wrote
// is refused. A new record not written yet (the shell's first close of a
// redirect) still holds its name, although lookups do not show it.
func (v handleView) holds() bool { return v.pending || v.created && !v.rejected }

func (h *writeHandle) shown() handleView {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.viewLocked()
}

// publishLocked updates holds after a change of the handle's state.
func (h *writeHandle) publishLocked() { h.holds.Store(h.viewLocked().holds()) }

func (h *writeHandle) viewLocked() handleView {
	return handleView{
		size:     h.buf.size(),
		pending:  h.dirty && h.failure == nil,
		created:  h.unstoredNew(),
		refused:  h.failure != nil,
		rejected: h.failure != nil && h.failure.content,
	}
}

// snapshot copies the buffer (charged to the budget like the buffer).
func (h *writeHandle) snapshot() (*memBuf, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.snapshot()
}

// Flush commits; its error is what close(2) returns. A new record whose
// commit failed loses its name before the failing close returns
// (dropName). FSYNC does not wait for that: the kernel holds the file's
// inode lock while it is answered, which an unlink in the directory,
// holding the directory's lock the notification needs, may be waiting for.
func (h *writeHandle) Flush(ctx context.Context) syscall.Errno {
	errno := h.commit()
	if errno != 0 && h.shown().created {
		h.c.dropName(ctx, h.id+recordExt)
	}
	return errno
}

func (h *writeHandle) Fsync(ctx context.Context, flags uint32) syscall.Errno { return h.commit() }

// Release reports a commit failure that stood to the last close and was
// not reported yet (failLocked).
func (h *writeHandle) Release(ctx context.Context) syscall.Errno {
	h.c.releaseWriter(h)
	h.mu.Lock()
	if !h.orphaned.Load() {
		h.reportLocked()
	}
	h.buf.free()
	h.mu.Unlock()
	return 0
}

// commit stores the buffer if it changed. Afterwards, failed or not, the
// kernel's attributes and pages of the record are invalidated: the writer's
// truncations and writes may have left a size or pages the store does not
// hold. So is its entry, so that the next open looks the name up and gets
// the node of the version now stored (recordversion.go). The invalidation
// is queued, not sent from this handler: it locks page-cache folios that a
// READ in flight holds (notifier.go).
func (h *writeHandle) commit() syscall.Errno {
	errno, changed := h.commitBuffer()
	if changed && errno == 0 {
		h.c.m.events.Info("commit", "path", h.c.rel, "id", h.id, "outcome", "stored")
	}
	if changed {
		name := h.id + recordExt
		if node := h.c.GetChild(name); node != nil {
			h.c.m.notify(func() {
				node.NotifyContent(0, 0)
				h.c.NotifyEntry(name)
			})
		}
	}
	return errno
}

// commitBuffer stores the buffer when it holds changes. A record created by
// this handle and never written is not stored: an empty file is not a
// record, so such a flush fails with EINVAL and changes nothing; the name
// is then gone for lookups (handleView.named) until something is written.
// A FLUSH cannot tell the last close(2) from one of a dup'd descriptor, so
// every close of such a descriptor reports EINVAL: `touch new.jsonc` fails
// visibly instead of pretending to have stored something.
func (h *writeHandle) commitBuffer() (errno syscall.Errno, attempted bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.dirty {
		if h.unstoredNew() && !h.orphaned.Load() {
			h.failLocked(syscall.EINVAL, reasonNothingWritten, false)
			return syscall.EINVAL, false
		}
		return 0, false
	}
	// A buffer whose commit failed stays refused until it changes (a write
	// or truncate clears the failure): another descriptor of the same open
	// file closing later, such as the shell's own copy of a redirect
	// (`sh -c 'cat x > rec'`: cat's close fails, then the shell's dup2
	// closes its copy), must not store what a close(2) already reported as
	// not stored, even if the cause (a unique conflict) is gone by then.
	if f := h.failure; f != nil {
		return f.errno, false
	}
	if errno := h.load(); errno != 0 {
		return errno, false
	}
	if h.buf.size() == 0 {
		h.failLocked(syscall.EINVAL, reasonEmpty, false)
		return syscall.EINVAL, false
	}
	errno, err := h.c.commitWriter(h, &h.buf, h.times, h.exclusive && !h.stored)
	if errno != 0 {
		reason := errno.Error()
		if err != nil {
			reason = failureReason(h.id, err)
		}
		h.failLocked(errno, reason, true)
		return errno, true
	}
	h.dirty, h.stored, h.times, h.failure = false, true, nil, nil
	h.publishLocked()
	return 0, true
}

// reasonEmpty is the refusal of a record truncated and not written.
const reasonEmpty = "empty content; an empty file is not a record, the stored record is unchanged"

// failLocked records that the commit of the unchanged buffer failed, and
// reports it now, or (now=false, an empty buffer) when the handle is
// released with the failure standing: a shell redirect closes a duplicate
// of its descriptor before writing, and that flush fails on the empty
// buffer although the write that follows is committed by the last close.
// A repeat of the same failure of the same buffer (fsync, then close) is
// not reported again.
func (h *writeHandle) failLocked(errno syscall.Errno, reason string, now bool) {
	if f := h.failure; f == nil || f.errno != errno || f.reason != reason {
		h.failure = &commitFailure{errno: errno, reason: reason, content: now}
		h.publishLocked()
	}
	if now {
		h.reportLocked()
	}
}

// reportLocked reports the standing failure once.
func (h *writeHandle) reportLocked() {
	if f := h.failure; f != nil && !f.reported {
		f.reported = true
		h.c.reportFailure(h.id, f.errno, f.reason)
	}
}

func (h *writeHandle) unlinkedAttr(out *fuse.Attr, perm uint32) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	setMemAttr(out, h.buf.size(), time.Now(), perm)
	return 0
}

// readHandle reads the stored record file.
type readHandle struct {
	f     *os.File
	pages *pageCache // the node's page cache, when this handle reads through it
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

func (h *readHandle) unlinkedAttr(out *fuse.Attr, perm uint32) syscall.Errno {
	fi, err := h.f.Stat()
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	fuseattr.FromInfo(out, fi, perm)
	return 0
}

func (h *readHandle) Release(ctx context.Context) syscall.Errno {
	if h.pages != nil {
		h.pages.release(h)
	}
	h.f.Close()
	return 0
}

// bufferReadHandle reads a snapshot of a buffer (a record whose new
// content is still being written by another handle).
type bufferReadHandle struct {
	mu  sync.Mutex
	buf *memBuf
}

var (
	_ fs.FileReader   = (*bufferReadHandle)(nil)
	_ fs.FileReleaser = (*bufferReadHandle)(nil)
)

func (h *bufferReadHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	data, errno := h.buf.readAt(dest, off)
	if errno != 0 {
		return nil, errno
	}
	return fuse.ReadResultData(data), 0
}

func (h *bufferReadHandle) unlinkedAttr(out *fuse.Attr, perm uint32) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	setMemAttr(out, h.buf.size(), time.Now(), perm)
	return 0
}

func (h *bufferReadHandle) Release(ctx context.Context) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf.free()
	return 0
}
