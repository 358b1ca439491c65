package docstore

import (
	"errors"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"storhfs/shard"
)

// scanned is one record file of a scan, read and validated.
type scanned struct {
	id string
	recordFile
	rec  *Record // nil with err == nil: the file vanished
	size int
	line []byte // ExportJSONL: the canonical line of rec
	err  error
}

// readPlan sizes a read-ahead: records are handed to the reading
// goroutines in batches of batch, at most ahead batches in flight. Full
// scans read far ahead; id lists stop early at a query limit, so little
// is read past it.
type readPlan struct{ batch, ahead int }

var (
	scanPlan = readPlan{batch: 16, ahead: 4}
	getPlan  = readPlan{batch: 4, ahead: 2}
)

// readWorkers is the number of goroutines reading record files ahead of a
// consumer: one per core, at most 4; below 2 the reads run inline.
func readWorkers() int {
	return min(runtime.GOMAXPROCS(0), 4)
}

// scanRecords calls fn, in id order, for every record file with an id >
// after that keep(id) accepts (keep returning stop=true ends the walk),
// with the file already read and validated. fn returning shard.ErrStop
// ends the scan without error; other errors are returned.
func (s *Store) scanRecords(after string, keep func(id string) (ok, stop bool), fn func(*scanned) error) error {
	return s.scanRecordsWith(after, keep, loadScanned, fn)
}

// scanRecordsWith is scanRecords with load (loadScanned plus more work done
// on the reading goroutines) instead of loadScanned.
func (s *Store) scanRecordsWith(after string, keep func(id string) (ok, stop bool), load func(*scanned), fn func(*scanned) error) error {
	data := s.openDataDir()
	defer data.close()
	walk := func(visit func(scanned) error) error {
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
			r := scanned{id: id}
			r.path = path
			r.dirfd, r.rel = data.at(path)
			return visit(r)
		})
	}
	return readAhead(walk, scanPlan, load, fn)
}

// loadScanned reads r's file (loadRecord).
func loadScanned(r *scanned) {
	r.rec, r.size, r.err = loadRecordFile(r.id, r.recordFile)
}

// getScanned is loadScanned where an empty path (an invalid id) reads no
// file and leaves r.rec nil.
func getScanned(r *scanned) {
	if r.path != "" {
		loadScanned(r)
	}
}

// GetEach calls fn, in the order of ids, with the record of each id as Get
// returns it, nil when missing or when the id is not a valid UUIDv7 (no
// record can have it; Get would refuse it with an error), reading a few
// records ahead (getPlan) on readWorkers goroutines. fn returning ErrStop
// or shard.ErrStop ends it without error.
func (s *Store) GetEach(ids []string, fn func(id string, rec *Record) error) error {
	data := s.openDataDir()
	defer data.close()
	walk := func(visit func(scanned) error) error {
		for _, id := range ids {
			r := scanned{id: id} // no path for an invalid id: getScanned skips it
			if validID(id) == nil {
				r.path = s.RecordPath(id)
				r.dirfd, r.rel = data.at(r.path)
				r.idValid = true
			}
			if err := visit(r); err != nil {
				return err
			}
		}
		return nil
	}
	err := readAhead(walk, getPlan, getScanned, func(r *scanned) error {
		if r.err != nil {
			return r.err
		}
		return fn(r.id, r.rec)
	})
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// dataDirFD is C/data held open for one scan or GetEach: files below it
// are opened relative to it, so the kernel resolves one or two path
// components per file instead of the whole path. fd is unix.AT_FDCWD when
// it could not be opened (no data directory yet): paths are used as is.
type dataDirFD struct {
	fd     int
	prefix string // C/data/
}

func (s *Store) openDataDir() dataDirFD {
	dir := shard.DataDir(s.dir)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		fd = unix.AT_FDCWD
	}
	return dataDirFD{fd: fd, prefix: dir + "/"}
}

// at returns how to open path: relative to d.fd when below it.
func (d dataDirFD) at(path string) (dirfd int, rel string) {
	if d.fd != unix.AT_FDCWD && strings.HasPrefix(path, d.prefix) {
		return d.fd, path[len(d.prefix):]
	}
	return unix.AT_FDCWD, path
}

func (d dataDirFD) close() {
	if d.fd != unix.AT_FDCWD {
		_ = unix.Close(d.fd)
	}
}

// readAhead calls fn for every record file that walk visits, in walk
// order, with load (loadScanned or getScanned) already applied; fn must
// not retain its argument. Files are read by readWorkers goroutines, up to
// plan.batch*plan.ahead records ahead of fn, so a long walk uses every
// core while fn still sees walk order. fn returning shard.ErrStop ends the
// walk without error; other errors from fn or walk are returned.
func readAhead(walk func(visit func(scanned) error) error, plan readPlan, load func(*scanned), fn func(*scanned) error) error {
	if readWorkers() < 2 {
		err := walk(func(r scanned) error {
			load(&r)
			return fn(&r)
		})
		if errors.Is(err, shard.ErrStop) {
			return nil
		}
		return err
	}
	// A batch is loaded by one worker; done is closed when it is.
	type batch struct {
		recs []scanned
		done chan struct{}
	}
	quit := make(chan struct{})
	work := make(chan *batch, plan.ahead)
	order := make(chan *batch, plan.ahead)
	var walkErr error
	go func() {
		defer close(order)
		defer close(work)
		var cur *batch
		send := func() error {
			select {
			case order <- cur:
			case <-quit:
				return shard.ErrStop
			}
			work <- cur // never blocks for long: workers drain it until closed
			cur = nil
			return nil
		}
		walkErr = walk(func(r scanned) error {
			if cur == nil {
				cur = &batch{recs: make([]scanned, 0, plan.batch), done: make(chan struct{})}
			}
			cur.recs = append(cur.recs, r)
			if len(cur.recs) < plan.batch {
				return nil
			}
			return send()
		})
		if cur != nil { // the last, partial batch (also before a walk error)
			if err := send(); walkErr == nil {
				walkErr = err
			}
		}
		if errors.Is(walkErr, shard.ErrStop) {
			walkErr = nil
		}
	}()
	var wg sync.WaitGroup
	for range readWorkers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				for i := range b.recs {
					select {
					case <-quit:
					default:
						load(&b.recs[i])
					}
				}
				close(b.done)
			}
		}()
	}
	var err error
consume:
	for b := range order {
		<-b.done
		for i := range b.recs {
			if err = fn(&b.recs[i]); err != nil {
				break consume
			}
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
