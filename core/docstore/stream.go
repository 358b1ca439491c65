package docstore

import (
	"errors"
	"strings"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
	"github.com/storhfs/storhfs/shard"
)

// ErrStop, returned by a Stream callback, ends the stream without error.
var ErrStop = errors.New("docstore: stop stream")

// WhereEqual is one RecordQuery equality filter.
type WhereEqual struct {
	Field string
	Value phpjson.Value // nil, bool, int64, float64 or string
}

// RecordQuery filters a Stream (PHP RecordQuery, docs/format/docstore.md §8.4). The zero value
// streams everything.
type RecordQuery struct {
	After   string                      // keep ids > After (bytewise); "" = none; validated
	FromMs  *int64                      // keep ids >= min_for_timestamp_ms(*FromMs)
	UntilMs *int64                      // keep ids <= max_for_timestamp_ms(*UntilMs)
	Where   []WhereEqual                // strict equality on top-level fields, all must hold
	Limit   int                         // > 0: stop after Limit records; 0: none; < 0: argument error
	OnError func(key string, err error) // non-nil: report unreadable records and skip them
}

// SetAfter sets the cursor, validating it as PHP's after() does.
func (q *RecordQuery) SetAfter(id string) error {
	if err := validID(id); err != nil {
		return err
	}
	q.After = id
	return nil
}

// SetLimit sets the limit; n must be at least 1.
func (q *RecordQuery) SetLimit(n int) error {
	if n < 1 {
		return newError(ErrInvalidArgument, msgQueryLimit)
	}
	q.Limit = n
	return nil
}

// AddWhereEqual adds (or, for a field already present, replaces) an
// equality filter, validating it as PHP's where_equal() does.
func (q *RecordQuery) AddWhereEqual(field string, value phpjson.Value) error {
	if err := checkWhere(field, value); err != nil {
		return err
	}
	for i := range q.Where {
		if q.Where[i].Field == field {
			q.Where[i].Value = value
			return nil
		}
	}
	q.Where = append(q.Where, WhereEqual{Field: field, Value: value})
	return nil
}

func checkWhere(field string, value phpjson.Value) error {
	if strings.Trim(field, " \t\n\r\x00\x0b") == "" {
		return newError(ErrInvalidArgument, msgQueryField)
	}
	switch value.(type) {
	case nil, bool, int64, float64, string:
		return nil
	}
	return newError(ErrInvalidArgument, msgQueryValue)
}

func (q *RecordQuery) validate() error {
	if q.After != "" {
		if err := validID(q.After); err != nil {
			return err
		}
	}
	if q.Limit < 0 {
		return newError(ErrInvalidArgument, msgQueryLimit)
	}
	for _, w := range q.Where {
		if err := checkWhere(w.Field, w.Value); err != nil {
			return err
		}
	}
	return nil
}

// matches applies the where_equal filters: the field must be a top-level
// key of data (a null value counts) with a strictly equal scalar.
func (q *RecordQuery) matches(data *phpjson.Array) bool {
	for _, w := range q.Where {
		v, ok := data.Lookup(w.Field)
		if !ok || !scalarIdentical(v, w.Value) {
			return false
		}
	}
	return true
}

// scalarIdentical is PHP === with a scalar or null operand b.
func scalarIdentical(a, b phpjson.Value) bool {
	switch bv := b.(type) {
	case nil:
		return a == nil
	case bool:
		av, ok := a.(bool)
		return ok && av == bv
	case int64:
		av, ok := a.(int64)
		return ok && av == bv
	case float64:
		av, ok := a.(float64)
		return ok && av == bv
	case string:
		av, ok := a.(string)
		return ok && av == bv
	}
	return false
}

// Stream calls fn for every record in ascending (bytewise) id order that
// passes q, reading every "<id>.jsonc" file of every bucket directory with
// its basename as the expected id (docs/format/docstore.md §8.4). It takes no lock. An
// unreadable record is reported to q.OnError and skipped, or, without a
// handler, ends the stream with its error. fn returning ErrStop ends the
// stream without error.
//
// Deliberate difference from PHP: the id filters (After, FromMs, UntilMs)
// are applied from the file names before reading, so unreadable records
// outside the id window are neither read nor reported.
func (s *Store) Stream(q RecordQuery, fn func(Record) error) error {
	if err := q.validate(); err != nil {
		return err
	}
	lo := q.After
	var from, until string
	if q.FromMs != nil {
		from = uuidv7.MinForTimestampMs(*q.FromMs)
	}
	if q.UntilMs != nil {
		until = uuidv7.MaxForTimestampMs(*q.UntilMs)
	}
	keep := func(id string) (ok, stop bool) {
		if until != "" && id > until {
			return false, true
		}
		return from == "" || id >= from, false
	}
	n := 0
	err := s.scanRecords(lo, keep, func(r *scanned) error {
		if r.err != nil {
			if q.OnError == nil {
				return r.err
			}
			q.OnError(r.id, r.err)
			return nil
		}
		if r.rec == nil || !q.matches(r.rec.Data) {
			return nil // vanished between listing and reading, or filtered
		}
		if err := fn(*r.rec); err != nil {
			return err
		}
		n++
		if q.Limit > 0 && n >= q.Limit {
			return shard.ErrStop
		}
		return nil
	})
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// scanFiles calls fn(id, path) for every record file in id order, ids <=
// after skipped; of several files with one basename (wrong buckets) only the
// first is visited. fn may return shard.ErrStop.
func (s *Store) scanFiles(after string, fn func(id, path string) error) error {
	prev := ""
	return shard.Walk(s.dir, after, func(e shard.Entry) error {
		if e.ID == prev {
			return nil
		}
		prev = e.ID
		return fn(e.ID, e.Path)
	})
}

// WalkIDs calls fn for every record id in bytewise order, ids <= after
// skipped, without reading the files (for directory listings). fn may
// return ErrStop.
func (s *Store) WalkIDs(after string, fn func(id string) error) error {
	err := shard.WalkIDs(s.dir, after, func(id string) error {
		if err := fn(id); err != nil {
			if errors.Is(err, ErrStop) {
				return shard.ErrStop
			}
			return err
		}
		return nil
	})
	return err
}
