package fusefs

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// viewHandle reads one open view. It reads its snapshot until a read goes
// past that snapshot's end, then moves to the node's current snapshot,
// which extends it (the node follows appends only).
type viewHandle struct {
	node *viewFile

	mu       sync.Mutex
	snap     viewSnap
	r        viewReader  // of snap; nil until the first read
	lastRead time.Time   // a shared handle's last read (closeReaderWhenIdle)
	idle     *time.Timer // closes an idle shared handle's reader; nil when none runs
}

// readerIdle is how long a shared handle (viewFile.shared) keeps its
// reader, and the files the reader holds open, after its last read.
const readerIdle = time.Second

// closeReaderWhenIdle closes the reader once no read came for readerIdle:
// a shared handle lives as long as its node, and cannot tell when the
// files read through it are closed. The next read makes a new reader.
func (h *viewHandle) closeReaderWhenIdle() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lastRead = time.Now()
	if h.idle == nil {
		h.idle = time.AfterFunc(readerIdle, h.closeIdleReader)
	}
}

func (h *viewHandle) closeIdleReader() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if wait := readerIdle - time.Since(h.lastRead); wait > 0 {
		h.idle.Reset(wait)
		return
	}
	h.idle = nil
	if h.r != nil {
		h.r.Close()
		h.r = nil
	}
}

var (
	_ fs.FileReader   = (*viewHandle)(nil)
	_ fs.FileReleaser = (*viewHandle)(nil)
)

func (h *viewHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if off+int64(len(dest)) > h.snap.stat().size {
		h.follow()
	}
	if h.r == nil {
		r, err := h.snap.newReader()
		if err != nil {
			return nil, errnoOf(err, syscall.EIO)
		}
		h.r = r
	}
	n, err := h.r.ReadAt(dest, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, errnoOf(err, syscall.EIO)
	}
	return fuse.ReadResultData(dest[:n]), 0
}

// follow moves the handle to the node's current snapshot if that one is
// newer.
func (h *viewHandle) follow() {
	cur := h.node.snapshot()
	if cur == nil || cur.stat().key == h.snap.stat().key {
		if cur != nil {
			cur.release()
		}
		return
	}
	if h.r != nil {
		h.r.Close()
		h.r = nil
	}
	h.snap.release()
	h.snap = cur
}

// catchUp moves the handle to the node's current snapshot: the node only
// follows appends, so every byte the handle served is the same there.
func (h *viewHandle) catchUp() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.follow()
}

func (h *viewHandle) Release(ctx context.Context) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.r != nil {
		h.r.Close()
		h.r = nil
	}
	h.snap.release()
	h.node.closed()
	return 0
}

// viewNodes is what the nodes of one source's views share across node
// generations.
type viewNodes struct {
	gen atomic.Uint64 // the last node generation handed out
	// byNode: the kernel sends no OPEN (a read-only mount), so the nodes
	// read without handles (viewFile.shared); set before any node is made.
	byNode bool

	// pages drops the kernel's pages of a node (mountState); nil where
	// there is no kernel (unit tests): a growth is then published at once.
	pages pageDropper

	mu    sync.Mutex
	stale map[staleOpen]time.Time // opens refused with ESTALE, and when
}

// pageDropper drops the kernel's cached pages of node n from offset from
// to its end, then runs then; outside every request, it never blocks.
type pageDropper interface {
	dropPages(n *fs.Inode, from int64, then func())
}

type staleOpen struct {
	name string
	pid  uint32
}

// staleRetryWithin bounds how long after a refusal an open by the same
// thread counts as its retry. The kernel retries at once, but after a
// lookup, which replays the view's files: hundreds of milliseconds for a
// large queue.
const staleRetryWithin = 5 * time.Second

// retryOf reports whether an open of view name by thread pid, arrived at
// arrived, is the retry of an open refused with ESTALE (noteRefusal): it
// then gets the node it found. Any open by the thread ends its pending
// retry.
func (n *viewNodes) retryOf(name string, pid uint32, arrived time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := staleOpen{name, pid}
	at, ok := n.stale[k]
	if ok {
		delete(n.stale, k)
	}
	return ok && arrived.Sub(at) < staleRetryWithin
}

// noteRefusal remembers that an open of view name by thread pid was
// refused with ESTALE at now, as it went through a node the kernel may
// see outdated.
func (n *viewNodes) noteRefusal(name string, pid uint32, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.stale == nil {
		n.stale = map[staleOpen]time.Time{}
	}
	for old, at := range n.stale {
		if now.Sub(at) >= staleRetryWithin {
			delete(n.stale, old)
		}
	}
	n.stale[staleOpen{name, pid}] = now
}
