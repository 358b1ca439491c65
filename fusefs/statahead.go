package fusefs

import (
	"os"
	"sync"
	"time"
)

// statAhead stats, on goroutines of its own, the records a READDIRPLUS
// listing is about to describe, so that those stats overlap the kernel's
// handling of the previous reply instead of adding to it (`ls -l` of a big
// collection), and, with the inodes not cached, each other's disk reads.
//
// Invariants:
//   - the goroutines take positions in order, never more than
//     statAheadWindow past the latest position taken;
//   - a result is handed out once, to the lookup of its own position;
//   - it is used only if no mutation of the collection through the mount
//     happened since it was taken (collectionNode.mutations), no record
//     event reached the watcher since (mountState.outsideChanges: with
//     long kernel caches an older stat would stay cached, its invalidation
//     having come before it), and it is at most maxStatAge old; otherwise
//     the lookup stats the record itself.
//
// So a lookup never sees older attributes than it would have without
// statAhead, save for outside writers within maxStatAge, a window far
// inside the 1 s the kernel caches attributes anyway.
type statAhead struct {
	c   *collectionNode
	s   RecordStore
	ids []string

	mu      sync.Mutex
	wake    sync.Cond
	next    int  // next position to stat
	limit   int  // positions < limit may be stat-ed
	stopped bool // Releasedir or Seekdir: the goroutines return
	parked  int  // goroutines waiting at the window's end
	ring    [statAheadWindow]recordStat
	done    chan struct{} // closed when every goroutine has returned
}

const (
	// statAheadWindow covers one READDIRPLUS reply (~160 records) with room.
	statAheadWindow = 512
	maxStatAge      = 100 * time.Millisecond
	// statAheadWorkers is how many stats may wait on the disk at once;
	// with the inodes cached, one goroutine does nearly all the work.
	statAheadWorkers = 4
)

// recordStat is the stat of a stored record file taken at a listing position.
type recordStat struct {
	pos       int // listing position + 1; 0 = empty slot
	fi        os.FileInfo
	err       error
	mutations uint64 // collectionNode.mutations before the stat
	outside   uint64 // mountState.outsideChanges before the stat
	at        time.Time
}

// startStatAhead starts stating ids from position from on.
func startStatAhead(c *collectionNode, s RecordStore, ids []string, from int) *statAhead {
	a := &statAhead{c: c, s: s, ids: ids, next: from, limit: from + statAheadWindow, done: make(chan struct{})}
	a.wake.L = &a.mu
	var workers sync.WaitGroup
	for range statAheadWorkers {
		workers.Go(a.run)
	}
	go func() {
		workers.Wait()
		close(a.done)
	}()
	return a
}

func (a *statAhead) run() {
	for {
		a.mu.Lock()
		for !a.stopped && a.next < len(a.ids) && a.next >= a.limit {
			a.parked++
			a.wake.Wait()
			a.parked--
		}
		if a.stopped || a.next >= len(a.ids) {
			a.wake.Broadcast() // the others are done too
			a.mu.Unlock()
			return
		}
		pos := a.next
		a.next++
		mutations, outside := a.c.mutations.Load(), a.c.m.outsideChanges.Load()
		a.mu.Unlock()

		fi, err := a.s.StatRecord(a.ids[pos])

		a.mu.Lock()
		a.ring[pos%statAheadWindow] = recordStat{pos: pos + 1, fi: fi, err: err, mutations: mutations, outside: outside, at: time.Now()}
		a.mu.Unlock()
	}
}

// take returns the stat taken for position pos when it is there and still
// valid, else nil; either way the goroutines move on past pos.
func (a *statAhead) take(pos int) *recordStat {
	a.mu.Lock()
	slot := &a.ring[pos%statAheadWindow]
	st := *slot
	if st.pos == pos+1 {
		*slot = recordStat{}
	}
	a.next = max(a.next, pos+1)
	a.limit = max(a.limit, pos+1+statAheadWindow)
	a.wake.Signal()
	a.mu.Unlock()
	if st.pos != pos+1 || st.mutations != a.c.mutations.Load() || st.outside != a.c.m.outsideChanges.Load() || time.Since(st.at) > maxStatAge {
		return nil
	}
	return &st
}

// stop ends the goroutines (they may finish the stats in progress).
func (a *statAhead) stop() {
	a.mu.Lock()
	a.stopped = true
	a.wake.Broadcast()
	a.mu.Unlock()
}
