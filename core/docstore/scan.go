package docstore

import (
	"errors"

	"github.com/storhfs/storhfs/core/readahead"
	"github.com/storhfs/storhfs/shard"
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

// Read-ahead windows (records loaded past the one being delivered). Full
// scans read further ahead; id lists stop early at a query limit, so
// little is read past it.
const (
	scanWindow = 64
	getWindow  = 16
)

// scanWalk lists the records of a scan, in id order, for readahead.Run.
type scanWalk = func(visit func(scanned) error) error

// scanRecords calls fn, in id order, for every record file with an id >
// after that keep(id) accepts (keep returning stop=true ends the walk),
// with the file already read and validated. fn returning shard.ErrStop
// ends the scan without error; other errors are returned.
func (s *Store) scanRecords(after string, keep func(id string) (ok, stop bool), fn func(*scanned) error) error {
	return stopIsNil(readahead.Run(s.walkScanned(after, keep), scanWindow, loadScanned, fn))
}

// walkScanned lists the record files of scanRecords(after, keep).
func (s *Store) walkScanned(after string, keep func(id string) (ok, stop bool)) scanWalk {
	return func(visit func(scanned) error) error {
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
			return visit(r)
		})
	}
}

// loadScanned reads r's file (loadRecord).
func loadScanned(r *scanned) {
	r.rec, r.size, r.err = loadRecord(r.id, r.recordFile, nil)
}

// getScanned reads r's file through the record cache (Get); an empty
// path (an invalid id) reads no file and leaves r.rec nil.
func (s *Store) getScanned(r *scanned) {
	if r.path != "" {
		r.rec, r.size, r.err = s.loadCached(r.id, r.recordFile)
	}
}

// GetEach calls fn, in the order of ids, with the record of each id as Get
// returns it, nil when missing or when the id is not a valid UUIDv7 (no
// record can have it; Get would refuse it with an error), reading a few
// records ahead (getWindow) on up to 4 goroutines. fn returning ErrStop
// or shard.ErrStop ends it without error.
func (s *Store) GetEach(ids []string, fn func(id string, rec *Record) error) error {
	// Records the cache serves need no read-ahead.
	ids, err := s.eachCached(ids, fn)
	if err != nil || len(ids) == 0 {
		if errors.Is(err, ErrStop) {
			return nil
		}
		return stopIsNil(err)
	}
	walk := func(visit func(scanned) error) error {
		for _, id := range ids {
			r := scanned{id: id} // no path for an invalid id: getScanned skips it
			if validID(id) == nil {
				r.path = s.RecordPath(id)
				r.idValid = true
			}
			if err := visit(r); err != nil {
				return err
			}
		}
		return nil
	}
	err = stopIsNil(readahead.Run(walk, getWindow, s.getScanned, func(r *scanned) error {
		if r.err != nil {
			return r.err
		}
		return fn(r.id, r.rec)
	}))
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// stopIsNil maps shard.ErrStop, the walks' and callbacks' way to end a
// scan early, to nil.
func stopIsNil(err error) error {
	if errors.Is(err, shard.ErrStop) {
		return nil
	}
	return err
}
