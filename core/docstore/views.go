package docstore

import (
	"io"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/query"
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
	aheadWindow  = 4096 // records between a hint and the export's read
	aheadWorkers = 16
	// The export is judged cold, and hints are sent, while it lists
	// fewer than coldRecordsPerMs records a millisecond over rateSpan
	// (from cache it runs several times faster, and hints would only
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
// aheadWorkers goroutines ask the kernel to read each record file
// (posix_fadvise WILLNEED) as the walk lists it, aheadWindow records
// before the export reads it: a cold collection is then read with many
// requests in flight instead of the export's few.
func (s *Store) ExportView(out io.Writer) (int, error) {
	paths := make(chan string, aheadWindow)
	stop := make(chan struct{})
	var workers sync.WaitGroup
	for range aheadWorkers {
		workers.Go(func() { hintFiles(paths, stop) })
	}
	defer workers.Wait()
	defer close(stop)
	rate := exportRate{cold: true, at: time.Now()}
	var listed int64
	hint := func(path string) {
		listed++
		if rate.update(listed, time.Now()) {
			select {
			case paths <- path:
			default: // the hints lag a window behind: the export reads it soon
			}
		}
	}
	return s.exportTo(out, viewChunk, func(walk scanWalk) scanWalk { return delayWalk(walk, aheadWindow, hint) })
}

// hintFiles hints the files of paths to the kernel until stop is closed.
func hintFiles(paths <-chan string, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case p := <-paths:
			hintFile(p)
		}
	}
}

// delayWalk returns walk with every record passed to hint as walk lists it
// and to visit window records later (the rest when walk ends).
func delayWalk(walk scanWalk, window int, hint func(path string)) scanWalk {
	return func(visit func(scanned) error) error {
		held := make([]scanned, 0, window) // a ring, oldest at held[next]
		next := 0
		var visitErr error
		err := walk(func(r scanned) error {
			hint(r.path)
			if len(held) < window {
				held = append(held, r)
				return nil
			}
			r, held[next] = held[next], r
			next = (next + 1) % window
			visitErr = visit(r)
			return visitErr
		})
		for i := 0; i < len(held) && visitErr == nil; i++ {
			visitErr = visit(held[(next+i)%len(held)])
		}
		if visitErr != nil {
			return visitErr
		}
		return err
	}
}

// exportRate judges from the export's pace whether it reads from disk.
type exportRate struct {
	cold   bool
	at     time.Time // start of the current span
	listed int64     // records listed at its start
}

// update takes the records listed by now and reports whether the export
// is cold.
func (r *exportRate) update(listed int64, now time.Time) bool {
	if span := now.Sub(r.at); span >= rateSpan {
		perMs := float64(listed-r.listed) / float64(span.Milliseconds())
		r.cold = perMs < coldRecordsPerMs
		r.at, r.listed = now, listed
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
