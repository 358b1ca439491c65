package shard

import (
	"sync"
	"sync/atomic"
)

// forEachIndex calls fn(i) for every i in [0, n) on up to workers
// goroutines (inline when fewer than 2 would run), handing out the indexes
// in order until a call returns false; it returns once every call has.
func forEachIndex(n, workers int, fn func(i int) (more bool)) {
	workers = min(workers, n)
	if workers < 2 {
		for i := range n {
			if !fn(i) {
				return
			}
		}
		return
	}
	var (
		next atomic.Int64 // the next index to hand out
		stop atomic.Bool
		wg   sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for !stop.Load() {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if !fn(i) {
					stop.Store(true)
				}
			}
		})
	}
	wg.Wait()
}
