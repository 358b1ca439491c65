package shard

import (
	"sync/atomic"
	"testing"
)

func TestForEachIndex(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 16} {
		calls := make([]atomic.Int32, 100)
		forEachIndex(len(calls), workers, func(i int) bool { calls[i].Add(1); return true })
		for i := range calls {
			if n := calls[i].Load(); n != 1 {
				t.Fatalf("workers %d: index %d called %d times", workers, i, n)
			}
		}
		// After a call returns false no more indexes are handed out: only
		// calls already under way may still run, not the hundreds left.
		var total atomic.Int32
		forEachIndex(1000, workers, func(i int) bool {
			total.Add(1)
			return i != 10
		})
		if n := total.Load(); n < 11 || n > 500 {
			t.Fatalf("workers %d: %d calls with a stop at index 10", workers, n)
		}
	}
}
