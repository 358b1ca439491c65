package fusefs

import (
	"sort"
	"sync"

	"golang.org/x/sys/unix"

	"storhfs/shard"
)

// Read-ahead across records. A tool walking a collection (ls -l, cat *,
// grep -r) looks up and opens records one at a time in listing order, and
// on a cold cache every one waits for its own inode and data blocks behind
// the FUSE round trips of the record before. When lookups or opens arrive
// in listing order, the next readAheadWindow records are hinted to the
// kernel by background workers: a stat for lookups (the inode), an open
// with POSIX_FADV_WILLNEED for opens (inode and content). So the disk reads
// overlap.
//
// Invariant: a hint only fills the kernel's own inode and page caches of
// the data directory; the mount keeps nothing from it and serves nothing
// from it, so a hint can never make a reply stale. A hint that fails (the
// record is gone) is dropped.
const (
	readAheadWindow  = 64  // records hinted ahead of a sequential reader
	readAheadWorkers = 4   // hints run at once
	readAheadQueue   = 512 // hints waiting; more are dropped
)

type hintKind uint8

const (
	hintInode   hintKind = iota // lstat: what a lookup needs
	hintContent                 // open + POSIX_FADV_WILLNEED: inode and data
)

type hint struct {
	path string
	kind hintKind
}

// readAheadPool runs hints on a few workers until closed.
type readAheadPool struct {
	hints chan hint
	wg    sync.WaitGroup

	mu     sync.RWMutex // held shared to send, exclusively to close hints
	closed bool
}

// newReadAheadPool starts the workers, which pass each hint to run
// (hint.run outside tests).
func newReadAheadPool(run func(hint)) *readAheadPool {
	p := &readAheadPool{hints: make(chan hint, readAheadQueue)}
	for range readAheadWorkers {
		p.wg.Go(func() {
			for h := range p.hints {
				run(h)
			}
		})
	}
	return p
}

// offer queues h unless the queue is full: hints are optional.
func (p *readAheadPool) offer(h hint) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return false
	}
	select {
	case p.hints <- h:
		return true
	default:
		return false
	}
}

// close stops the workers once the queued hints ran.
func (p *readAheadPool) close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.hints)
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (h hint) run() {
	switch h.kind {
	case hintInode:
		var st unix.Stat_t
		_ = unix.Lstat(h.path, &st) // only warms the inode cache
	case hintContent:
		fd, err := unix.Open(h.path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil {
			return
		}
		_ = unix.Fadvise(fd, 0, 0, unix.FADV_WILLNEED) // starts readahead, does not wait
		_ = unix.Close(fd)
	}
}

// sequence follows one kind of access (lookups or opens) to a collection
// and says which listing positions to hint when the accesses are
// sequential.
type sequence struct {
	mu     sync.Mutex
	expect int // the position that continues the sequence (0 at first)
	ahead  int // positions in [expect, ahead) were hinted already
}

// access records an access at position pos of a listing of n records and
// returns the positions [from, to) to hint now: none unless pos follows
// the previous access; else a refill of the window once half of it is used.
func (s *sequence) access(pos, n int) (from, to int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sequential := pos == s.expect
	s.expect = pos + 1
	if !sequential {
		s.ahead = pos + 1
		return 0, 0
	}
	from = max(s.ahead, pos+1)
	if from-pos > readAheadWindow/2 {
		return 0, 0 // still well ahead of the reader
	}
	to = min(pos+1+readAheadWindow, n)
	if from >= to {
		return 0, 0
	}
	s.ahead = to
	return from, to
}

// readAhead hints the records after id in the last listing, if accesses of
// this kind arrive in listing order. It never blocks on I/O.
func (c *collectionNode) readAhead(id string, kind hintKind) {
	pool := c.m.readAhead
	if pool == nil {
		return
	}
	ids := c.listing.lastIDs()
	pos := sort.SearchStrings(ids, id)
	if pos == len(ids) || ids[pos] != id {
		return
	}
	seq := &c.lookups
	if kind == hintContent {
		seq = &c.opens
	}
	from, to := seq.access(pos, len(ids))
	if from == to {
		return
	}
	s, errno := c.store()
	if errno != 0 {
		return
	}
	ds, ok := s.(dirStore)
	if !ok {
		return
	}
	dir := ds.Dir()
	for _, next := range ids[from:to] {
		if !pool.offer(hint{path: shard.RecordPath(dir, next), kind: kind}) {
			return
		}
	}
}
