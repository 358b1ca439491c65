package seglog

import (
	"errors"

	"github.com/storhfs/storhfs/core/query"
)

// StoreClass is the PHP class name explain() reports for a log.
const StoreClass = `Storh\SegmentedLogStore`

// Query returns storh's QueryBuilder over this log: records in stream
// order, explain plan full_scan. count() is the scan result; PHP's raw
// substring pre-filter (quirk log-count-substring) is not reproduced.
func (l *Log) Query() *query.Builder { return query.New(logSource{l}) }

// logSource adapts a Log to query.Source and query.Counter.
type logSource struct{ l *Log }

func (s logSource) StoreClass() string { return StoreClass }

var _ query.CursorScanner = logSource{}

func (s logSource) Scan(fn func(query.Record) error) error { return s.scan(StreamQuery{}, fn) }

// ScanAfter streams past a query cursor as PHP's query_records and
// count_records do: segments wholly at or below it are skipped and ordered
// ones are entered at their sparse-index seek offset.
func (s logSource) ScanAfter(after string, fn func(query.Record) error) error {
	var q StreamQuery
	if err := q.After(after); err != nil {
		return err
	}
	return s.scan(q, fn)
}

func (s logSource) scan(q StreamQuery, fn func(query.Record) error) error {
	return s.l.Stream(q, func(r Record) error {
		if err := fn(query.Record{ID: r.ID, Data: r.Data}); err != nil {
			if errors.Is(err, query.ErrStop) {
				return errStopStream
			}
			return err
		}
		return nil
	})
}

func (s logSource) Get(id string) (*query.Record, error) {
	r, err := s.l.Get(id)
	if err != nil || r == nil {
		return nil, err
	}
	return &query.Record{ID: r.ID, Data: r.Data}, nil
}

// CountAll is the number of live ids in the state index.
func (s logSource) CountAll() (int, error) {
	s.l.mu.Lock()
	defer s.l.mu.Unlock()
	return s.l.state.live, nil
}
