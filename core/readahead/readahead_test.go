package readahead

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/storhfs/storhfs/internal/proctest"
)

// prefetchItem is a synthetic item: in its walk position, out what load
// made of it.
type prefetchItem struct{ in, out int }

// TestReadAheadMatchesSequential checks Run against the plain loop
// for every stop position, fn error and walk error: same items in the same
// order, same error, nothing loaded beyond the window, every delivered item
// loaded exactly once, no goroutine left behind.
func TestReadAheadMatchesSequential(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("procs%d", procs), func(t *testing.T) {
			proctest.WithProcs(t, procs)
			const n, window = 40, 8
			errStop, errFn, errWalk := errors.New("stop"), errors.New("fn failed"), errors.New("walk failed")
			for stopAt := -1; stopAt <= n; stopAt++ {
				for _, mode := range []string{"stop", "error", "walk"} {
					base := runtime.NumGoroutine()
					run := func(prefetch bool) ([]int, error, int64) {
						var loads atomic.Int64
						var maxLoaded atomic.Int64
						walk := func(visit func(prefetchItem) error) error {
							for i := 0; i < n; i++ {
								if mode == "walk" && i == stopAt {
									return errWalk
								}
								if err := visit(prefetchItem{in: i}); err != nil {
									return err
								}
							}
							return nil
						}
						delivered := 0
						load := func(it *prefetchItem) {
							loads.Add(1)
							for {
								m := maxLoaded.Load()
								if int64(it.in) <= m || maxLoaded.CompareAndSwap(m, int64(it.in)) {
									break
								}
							}
							if it.in%3 == 0 {
								runtime.Gosched()
							}
							it.out = it.in*10 + 1
						}
						var got []int
						fn := func(it *prefetchItem) error {
							if it.out != it.in*10+1 {
								t.Fatalf("item %d delivered unloaded (%d)", it.in, it.out)
							}
							if lim := int64(delivered + window + 1); maxLoaded.Load() > lim {
								t.Fatalf("loaded item %d with %d delivered, window %d", maxLoaded.Load(), delivered, window)
							}
							delivered++
							got = append(got, it.out)
							if it.in == stopAt && mode == "stop" {
								return errStop
							}
							if it.in == stopAt && mode == "error" {
								return errFn
							}
							return nil
						}
						var err error
						if prefetch {
							err = Run(walk, window, load, fn)
						} else {
							var fnErr error
							err = walk(func(it prefetchItem) error {
								load(&it)
								fnErr = fn(&it)
								return fnErr
							})
							if fnErr != nil {
								err = fnErr
							}
						}
						return got, err, loads.Load()
					}
					want, wantErr, _ := run(false)
					got, gotErr, loads := run(true)
					if fmt.Sprint(got) != fmt.Sprint(want) || gotErr != wantErr {
						t.Fatalf("stopAt %d %s: got %v, %v; want %v, %v", stopAt, mode, got, gotErr, want, wantErr)
					}
					if loads < int64(len(got)) || loads > int64(len(got)+window) {
						t.Fatalf("stopAt %d %s: %d loads for %d delivered", stopAt, mode, loads, len(got))
					}
					proctest.CheckNoLeak(t, base)
				}
			}
		})
	}
}
