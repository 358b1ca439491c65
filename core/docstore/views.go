package docstore

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/query"
	"github.com/storhfs/storhfs/shard"
)

// Read-only views of a collection for the mount's hidden index folders
// (COLL/.by/; README.md, "Index folders and the whole-collection file"):
// what PHP's indexed equality query answers, field by field and value by
// value.

// EqualityFields returns the fields with an equality or unique index (not
// range; docs/format/indexes.md §2), sorted, after re-reading the
// manifest: definitions PHP added since the open show up.
func (s *Store) EqualityFields() ([]string, error) {
	if err := s.idx.Reload(); err != nil {
		return nil, err
	}
	var fields []string
	for _, d := range s.idx.Definitions() {
		if !d.Range {
			fields = append(fields, d.Field)
		}
	}
	return fields, nil
}

// EqualityValues returns the values that occur in field's equality
// entries (docindex.EqualityValues).
func (s *Store) EqualityValues(field string) ([]phpjson.Value, error) {
	return s.idx.EqualityValues(field)
}

// EqualIDs returns, in id order, the ids of the records PHP's
// where(field, '=', v)->get() returns when field has an equality index:
// the index's candidates, each read and checked with === (core/query,
// docs/format/indexes.md §11.2).
func (s *Store) EqualIDs(field string, v phpjson.Value) ([]string, error) {
	var ids []string
	err := s.Query().Where(field, "eq", v).Stream(func(r query.Record) error {
		ids = append(ids, r.ID)
		return nil
	})
	return ids, err
}

// EqualityCount is the stored count of field's entry for v (0 when there
// is none; docs/format/indexes.md §5.2).
func (s *Store) EqualityCount(field string, v phpjson.Value) (int64, error) {
	n, _, err := s.idx.EqualityCount(field, v)
	return n, err
}

// How far, and with how many requests in flight, ExportView reads ahead.
const (
	aheadWindow  = 4096 // records past the last one written
	aheadWorkers = 16
	// The export is judged cold, and hints are sent, while it writes
	// fewer than coldRecordsPerMs records a millisecond over rateSpan
	// (from cache it writes several times more, and hints would only
	// cost it the extra opens).
	coldRecordsPerMs = 25
	rateSpan         = 200 * time.Millisecond
)

// viewChunk is the size of ExportView's writes: a reader of the mount
// takes 128 KiB at a time, and PHP's 1 MiB chunks (exportChunk) only
// matter for what a failed export leaves in a file.
const viewChunk = 128 << 10

// ExportView writes the bytes ExportJSONLTo writes (in smaller writes)
// for the mount's COLL/.all.ndjson. While the export runs at a cold pace,
// aheadWorkers goroutines ask the kernel to read the next record files
// (posix_fadvise WILLNEED), up to aheadWindow records past the last line
// written: a cold collection is then read with many requests in flight
// instead of the export's few, in the order the disk prefers.
func (s *Store) ExportView(out io.Writer) (int, error) {
	lines := &lineCount{w: out}
	stop := make(chan struct{})
	var done sync.WaitGroup
	done.Add(1)
	go func() {
		defer done.Done()
		s.readAhead(&lines.n, stop)
	}()
	n, err := s.exportTo(lines, viewChunk)
	close(stop)
	done.Wait()
	return n, err
}

var errStopAhead = errors.New("export ended")

// readAhead walks the record files in id order, staying at most
// aheadWindow records ahead of *written, and hints them to the kernel
// while the export is slow (cold), until the walk ends or stop is closed.
// Failures only cost the hint.
func (s *Store) readAhead(written *atomic.Int64, stop <-chan struct{}) {
	paths := make(chan string, aheadWorkers)
	var workers sync.WaitGroup
	for range aheadWorkers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for p := range paths {
				hintFile(p)
			}
		}()
	}
	rate := exportRate{cold: true, at: time.Now()}
	var i int64
	_ = aheadWalk(shard.DataDir(s.dir), func(path string) error {
		i++
		for i-written.Load() > aheadWindow {
			select {
			case <-stop:
				return errStopAhead
			case <-time.After(time.Millisecond):
			}
		}
		if !rate.update(written.Load(), time.Now()) {
			return nil
		}
		select {
		case <-stop:
			return errStopAhead
		case paths <- path:
		}
		return nil
	})
	close(paths)
	workers.Wait()
}

// exportRate judges from the export's pace whether it reads from disk.
type exportRate struct {
	cold    bool
	at      time.Time // start of the current span
	written int64     // lines written at its start
}

// update takes the lines written by now and reports whether the export
// is cold.
func (r *exportRate) update(written int64, now time.Time) bool {
	if span := now.Sub(r.at); span >= rateSpan {
		perMs := float64(written-r.written) / float64(span.Milliseconds())
		r.cold = perMs < coldRecordsPerMs
		r.at, r.written = now, written
	}
	return r.cold
}

// hintFile asks the kernel to read the file at path ahead. It uses a
// bare descriptor: an *os.File per hint would leave a finalizer-held
// object per record for the collector.
func hintFile(path string) {
	fd, err := fsutil.OpenAt(unix.AT_FDCWD, path, unix.O_RDONLY, 0)
	if err != nil {
		return
	}
	fsutil.AdviseWillNeed(fd)
	unix.Close(fd)
}

// lineCount counts the lines written through it.
type lineCount struct {
	w io.Writer
	n atomic.Int64
}

func (c *lineCount) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(bytes.Count(b[:n], []byte{'\n'})))
	return n, err
}
