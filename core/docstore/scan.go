package docstore

import (
	"errors"
	"runtime"
	"sync"

	"storhfs/shard"
)

// scanned is one record file of a scan, read and validated.
type scanned struct {
	id, path string
	rec      *Record // nil with err == nil: the file vanished
	size     int
	err      error
	done     chan struct{}
}

// scanAhead bounds how many records a scan reads ahead of its consumer.
const scanAhead = 64

// scanRecords calls fn, in id order, for every record file with an id >
// after that keep(id) accepts (keep returning stop=true ends the walk),
// with the file already read and validated. Files are read by up to
// GOMAXPROCS goroutines ahead of fn (at most scanAhead records), so a
// large scan uses every core while fn still sees id order. fn returning
// shard.ErrStop ends the scan without error; other errors are returned.
func (s *Store) scanRecords(after string, keep func(id string) (ok, stop bool), fn func(*scanned) error) error {
	workers := runtime.GOMAXPROCS(0)
	if workers > 4 {
		workers = 4
	}
	if workers < 2 {
		return s.scanFiles(after, func(id, path string) error {
			if keep != nil {
				ok, stop := keep(id)
				if stop {
					return shard.ErrStop
				}
				if !ok {
					return nil
				}
			}
			r := &scanned{id: id, path: path}
			r.rec, r.size, r.err = loadRecord(id, path)
			return fn(r)
		})
	}

	quit := make(chan struct{})
	work := make(chan *scanned, scanAhead)
	order := make(chan *scanned, scanAhead)
	var walkErr error
	go func() {
		defer close(order)
		defer close(work)
		walkErr = s.scanFiles(after, func(id, path string) error {
			if keep != nil {
				ok, stop := keep(id)
				if stop {
					return shard.ErrStop
				}
				if !ok {
					return nil
				}
			}
			r := &scanned{id: id, path: path, done: make(chan struct{})}
			select {
			case order <- r:
			case <-quit:
				return shard.ErrStop
			}
			work <- r // never blocks for long: workers drain it until closed
			return nil
		})
	}()
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				select {
				case <-quit:
				default:
					r.rec, r.size, r.err = loadRecord(r.id, r.path)
				}
				close(r.done)
			}
		}()
	}
	var err error
	for r := range order {
		<-r.done
		if err = fn(r); err != nil {
			break
		}
	}
	close(quit)
	for range order { // let the walker finish
	}
	wg.Wait()
	if err != nil {
		if errors.Is(err, shard.ErrStop) {
			return nil
		}
		return err
	}
	return walkErr
}
