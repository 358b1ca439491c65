// Package readahead runs an ordered prefetch: items produced by a walk are
// loaded ahead on several goroutines and delivered in walk order.
package readahead

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
)

// Ordered prefetch: the consumer's goroutine runs the walk and publishes
// each item into a ring of `window` slots; helper goroutines and the
// consumer itself load published items (load: read and decode a record
// file), and the consumer hands them to fn strictly in walk order.
//
// Why this shape (2 cores, syscall-bound loads): the consumer never sits
// idle while an item is unclaimed, a parked helper is woken only for a run
// of items, and helpers claim a few items per atomic operation, so
// goroutine hand-offs (futex wake-ups) and shared cache lines cost little
// per item; with no free core it degrades to the sequential loop.
//
// Invariants, with head = next item to deliver, tail = items published,
// claimed = next item to load:
//   - head <= claimed <= tail <= head+window: every claimed, undelivered
//     item has its own slot (item i uses slots[i%window]).
//   - An item is loaded exactly once, by whoever advanced claimed past it,
//     and handed to fn only after its done flag is set.
//   - Only the consumer writes a slot's item before publishing it and reads
//     it after done; a loader writes it between claim and done.
//   - The consumer returns only after every helper has exited.

// prefetchSlot holds one published item and whether it is loaded.
type prefetchSlot[T any] struct {
	item T
	done atomic.Bool
}

// prefetcher is the state of one Run call.
type prefetcher[T any] struct {
	load  func(*T)
	slots []prefetchSlot[T]
	head  int64 // consumer only

	tail    atomic.Int64
	claimed atomic.Int64

	helpers  int
	started  bool          // consumer only: helpers launched
	idle     atomic.Int32  // helpers parked on wake, or about to
	wake     chan struct{} // a token per publish while helpers are idle
	shutdown chan struct{} // closed when helpers must exit
	wg       sync.WaitGroup

	consumerWaiting atomic.Bool
	consumerWake    chan struct{} // cap 1: a loader finished an item
}

// ErrStopped is what visit returns once fn has failed: the walk should
// return (it may return ErrStopped or anything else; Run then reports
// fn's error).
var ErrStopped = errors.New("readahead: stopped")

// Workers is the number of goroutines Run loads items on, the caller
// included: one per core, at most 4; below 2 the loads run inline.
func Workers() int {
	return min(runtime.GOMAXPROCS(0), 4)
}

// Run calls fn for every item that walk visits, in walk order, with load
// already applied to it; fn must not retain its argument. Up to window
// items past the one fn sees are loaded ahead by Workers()-1 helper
// goroutines and by the caller; load must be safe to run concurrently on
// distinct items. The first error from fn ends the walk and is returned;
// otherwise walk's error is returned, after every item visited before it
// was delivered. Helpers have exited when Run returns.
func Run[T any](walk func(visit func(T) error) error, window int, load func(*T), fn func(*T) error) error {
	helpers := Workers() - 1
	if helpers < 1 {
		var fnErr error
		walkErr := walk(func(it T) error {
			load(&it)
			if fnErr = fn(&it); fnErr != nil {
				return ErrStopped
			}
			return nil
		})
		if fnErr != nil {
			return fnErr
		}
		return walkErr
	}
	p := &prefetcher[T]{
		load:         load,
		slots:        make([]prefetchSlot[T], max(window, 2)),
		helpers:      helpers,
		wake:         make(chan struct{}, helpers),
		shutdown:     make(chan struct{}),
		consumerWake: make(chan struct{}, 1),
	}
	defer p.stopHelpers()
	var fnErr error
	walkErr := walk(func(it T) error {
		if p.tail.Load()-p.head == int64(len(p.slots)) {
			if fnErr = p.deliver(fn); fnErr != nil {
				return ErrStopped
			}
		}
		p.publish(it)
		return nil
	})
	if fnErr != nil {
		return fnErr
	}
	for p.head < p.tail.Load() {
		if err := p.deliver(fn); err != nil {
			return err
		}
	}
	return walkErr
}

// publish makes it the next item to load (the ring has a free slot).
func (p *prefetcher[T]) publish(it T) {
	t := p.tail.Load()
	s := &p.slots[t%int64(len(p.slots))]
	s.item = it
	s.done.Store(false)
	p.tail.Store(t + 1)
	if !p.started && t >= 1 { // a second item: worth a helper
		p.started = true
		for range p.helpers {
			p.wg.Add(1)
			go p.help()
		}
	}
	// An idle helper is woken only for a run of unclaimed items: waking it
	// per item would cost a futex wake-up per item once helpers are faster
	// than the consumer (they usually are: it also walks and delivers).
	if p.idle.Load() > 0 && t+1-p.claimed.Load() >= p.wakeRun() {
		select {
		case p.wake <- struct{}{}:
		default: // enough tokens pending for every idle helper
		}
	}
}

// wakeRun is how many unclaimed items wake an idle helper.
func (p *prefetcher[T]) wakeRun() int64 { return int64(max(len(p.slots)/4, 1)) }

// deliver waits until item head is loaded, loading others meanwhile (or
// head itself when no one has claimed it), and passes it to fn.
func (p *prefetcher[T]) deliver(fn func(*T) error) error {
	s := &p.slots[p.head%int64(len(p.slots))]
	for !s.done.Load() {
		if i, ok := p.claim(); ok {
			p.loadItem(i)
			continue
		}
		p.consumerWaiting.Store(true)
		if s.done.Load() {
			p.consumerWaiting.Store(false)
			break
		}
		<-p.consumerWake // may be a stale token: the loop checks again
	}
	err := fn(&s.item)
	var zero T
	s.item = zero // drop references (decoded records) early
	p.head++
	return err
}

// claim takes the next published, unclaimed item.
func (p *prefetcher[T]) claim() (int64, bool) {
	i, n := p.claimUpTo(1)
	return i, n == 1
}

// claimUpTo takes the next published, unclaimed items, at most max of
// them and at most half of those available (the rest stay for others):
// items [first, first+n). Claiming several at once keeps the shared
// counter's cache line from moving between cores at every item.
func (p *prefetcher[T]) claimUpTo(most int64) (first, n int64) {
	for {
		c := p.claimed.Load()
		avail := p.tail.Load() - c
		if avail <= 0 {
			return 0, 0
		}
		n := max(min(most, avail/2), 1)
		if p.claimed.CompareAndSwap(c, c+n) {
			return c, n
		}
	}
}

// loadItem loads claimed item i and marks it done, waking the consumer if
// it waits.
func (p *prefetcher[T]) loadItem(i int64) {
	s := &p.slots[i%int64(len(p.slots))]
	p.load(&s.item)
	s.done.Store(true)
	if p.consumerWaiting.Load() && p.consumerWaiting.CompareAndSwap(true, false) {
		select {
		case p.consumerWake <- struct{}{}:
		default:
		}
	}
}

// helperClaim is the most items a helper claims at once.
const helperClaim = 4

// help is a helper goroutine: it loads published items until shutdown,
// parking while there are none.
func (p *prefetcher[T]) help() {
	defer p.wg.Done()
	for {
		select {
		case <-p.shutdown:
			return
		default:
		}
		if first, n := p.claimUpTo(helperClaim); n > 0 {
			for i := first; i < first+n; i++ {
				p.loadItem(i)
			}
			continue
		}
		p.idle.Add(1)
		if p.claimed.Load() < p.tail.Load() { // published meanwhile
			p.idle.Add(-1)
			continue
		}
		select {
		case <-p.wake:
		case <-p.shutdown:
		}
		p.idle.Add(-1)
	}
}

// stopHelpers ends the helpers and waits for them (each finishes the item
// it is loading; nothing is loaded after Run returns).
func (p *prefetcher[T]) stopHelpers() {
	close(p.shutdown)
	p.wg.Wait()
}
