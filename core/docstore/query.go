package docstore

import (
	"errors"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/query"
)

// StoreClass is the PHP class name explain() reports for a DocStore.
const StoreClass = `Storh\DocPerFileStore`

// Query starts a PHP QueryBuilder query on this collection (docs/format/docstore.md §8.5-8.6).
// It reads without a lock and uses the secondary indexes only to narrow
// candidates.
func (s *Store) Query() *query.Builder { return query.New(querySource{s}) }

// querySource adapts a Store to query.Source and query.Indexed.
type querySource struct{ s *Store }

var (
	_ query.Source        = querySource{}
	_ query.Indexed       = querySource{}
	_ query.Counter       = querySource{}
	_ query.IndexCounter  = querySource{}
	_ query.EqualityPager = querySource{}
)

func (q querySource) StoreClass() string { return StoreClass }

// Scan streams every record in id order; an unreadable record ends the
// scan with its error (PHP's query scan has no error handler).
func (q querySource) Scan(fn func(query.Record) error) error {
	err := q.s.Stream(RecordQuery{}, func(r Record) error {
		err := fn(query.Record{ID: r.ID, Data: r.Data})
		if errors.Is(err, query.ErrStop) {
			return ErrStop
		}
		return err
	})
	return err
}

func (q querySource) Get(id string) (*query.Record, error) {
	rec, err := q.s.Get(id)
	if err != nil || rec == nil {
		return nil, err
	}
	return &query.Record{ID: rec.ID, Data: rec.Data}, nil
}

func (q querySource) Definition(field string) (unique, rangeIdx, ok bool) {
	d, ok := q.s.idx.Definition(field)
	return d.Unique, d.Range, ok
}

func (q querySource) EqualityIDs(field string, v phpjson.Value) ([]string, bool, error) {
	return q.s.idx.EqualityIDs(field, v)
}

// EqualityIDsFrom reads a page of an equality entry's sorted ids
// (docindex.EqualityIDsFrom), for a query with a limit.
func (q querySource) EqualityIDsFrom(field string, v phpjson.Value, after string, limit int) ([]string, bool, error) {
	return q.s.idx.EqualityIDsFrom(field, v, after, limit)
}

func (q querySource) RangeScan(field, fromKey, toKey string, fn func(key string, value phpjson.Value, ids []string) error) (bool, error) {
	return q.s.idx.RangeScan(field, fromKey, toKey, fn)
}

func (q querySource) RangeKey(v phpjson.Value) string { return docindex.RangeKey(v) }

// CountAll counts the record files (count() without conditions or cursor).
func (q querySource) CountAll() (int, error) {
	n := 0
	err := q.s.WalkIDs("", func(string) error { n++; return nil })
	return n, err
}

// EqualityCount is the stored count of the equality entry of (field, v)
// (docindex.EqualityCount), for an index-trusting count() fast path.
func (q querySource) EqualityCount(field string, v phpjson.Value) (int64, bool, error) {
	return q.s.idx.EqualityCount(field, v)
}

// CompoundCount is the stored count of the compound entry of (f1 == v1,
// f2 == v2) (docindex.CompoundCount).
func (q querySource) CompoundCount(f1 string, v1 phpjson.Value, f2 string, v2 phpjson.Value) (int64, bool, error) {
	return q.s.idx.CompoundCount(f1, v1, f2, v2)
}

// GetEach fetches the candidates of an index lookup ahead of the query
// (Store.GetEach).
func (q querySource) GetEach(ids []string, fn func(id string, rec *query.Record) error) error {
	return q.s.GetEach(ids, func(id string, rec *Record) error {
		var qr *query.Record
		if rec != nil {
			qr = &query.Record{ID: rec.ID, Data: rec.Data}
		}
		err := fn(id, qr)
		if errors.Is(err, query.ErrStop) {
			return ErrStop
		}
		return err
	})
}
