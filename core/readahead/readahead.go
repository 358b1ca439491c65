// Package readahead runs an ordered prefetch: items produced by a walk are
// loaded ahead on several goroutines and delivered in walk order.
package readahead

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
)

// Ordered prefetch in batches of window/2 items: the consumer's goroutine
// runs the walk and fills a batch; a full batch is offered to the helper
// goroutines, and the consumer then delivers the batch before it, loading
// (load: read and decode a record file) what no helper has claimed yet, or
// else items of the newer batch, until every item of the older one is
// loaded. Goroutines meet about twice a batch, not once an item (futex
// wake-ups cost as much as a load on 2 cores), and the consumer waits only
// when there is nothing left to load.
//
// Invariants: an item is loaded exactly once, by whoever claimed it
// (batch.loadOne), and handed to fn only after every item of its batch is
// loaded; at most two batches (window items) past the one fn sees are
// loaded; Run returns only after every helper has exited.

// batch is a run of walked items and the loads of them.
type batch[T any] struct {
	items   []T
	claimed atomic.Int64  // next item to load
	done    atomic.Int64  // items loaded
	loaded  chan struct{} // closed when every item is loaded
}

func newBatch[T any](size int) *batch[T] {
	return &batch[T]{items: make([]T, 0, size), loaded: make(chan struct{})}
}

// loadOne loads the next unclaimed item of b, if there is one.
func (b *batch[T]) loadOne(load func(*T)) bool {
	i := b.claimed.Add(1) - 1
	if i >= int64(len(b.items)) {
		return false
	}
	load(&b.items[i])
	if b.done.Add(1) == int64(len(b.items)) {
		close(b.loaded)
	}
	return true
}

// ErrStopped is what visit returns once fn has failed: the walk should
// return (it may return ErrStopped or anything else; Run then reports
// fn's error).
var ErrStopped = errors.New("readahead: stopped")

// Run calls fn for every item that walk visits, in walk order, with load
// already applied to it; fn must not retain its argument. Up to window
// items past the one fn sees are loaded ahead by the caller and helper
// goroutines (one loader per core, at most 4); load must be safe to run
// concurrently on distinct items. The first error from fn ends the walk
// and is returned; otherwise walk's error is returned, after every item
// visited before it was delivered. Helpers have exited when Run returns.
func Run[T any](walk func(visit func(T) error) error, window int, load func(*T), fn func(*T) error) error {
	helpers := min(runtime.GOMAXPROCS(0), 4) - 1
	work := make(chan *batch[T], helpers)
	var wg sync.WaitGroup
	for range helpers {
		wg.Go(func() {
			for b := range work {
				for b.loadOne(load) {
				}
			}
		})
	}
	defer wg.Wait()
	defer close(work)

	size := max(window/2, 1)
	// deliver hands b's items to fn once they are all loaded, loading them,
	// or else those of also (the newer batch, if any), meanwhile.
	deliver := func(b, also *batch[T]) error {
		for b.done.Load() < int64(len(b.items)) {
			if !b.loadOne(load) && (also == nil || !also.loadOne(load)) {
				<-b.loaded
			}
		}
		for i := range b.items {
			if err := fn(&b.items[i]); err != nil {
				return err
			}
		}
		return nil
	}
	var prev *batch[T] // published, not delivered
	next := newBatch[T](size)
	// publish offers next to the helpers and delivers prev.
	publish := func() error {
		for range helpers {
			select {
			case work <- next:
			default: // every helper has a batch waiting: the caller loads this one
			}
		}
		older, newer := prev, next
		prev, next = newer, newBatch[T](size)
		if older == nil {
			return nil
		}
		return deliver(older, newer)
	}
	var fnErr error
	walkErr := walk(func(it T) error {
		next.items = append(next.items, it)
		if len(next.items) == size {
			if fnErr = publish(); fnErr != nil {
				return ErrStopped
			}
		}
		return nil
	})
	if fnErr != nil {
		return fnErr
	}
	if len(next.items) > 0 {
		if err := publish(); err != nil {
			return err
		}
	}
	if prev != nil {
		if err := deliver(prev, nil); err != nil {
			return err
		}
	}
	return walkErr
}
