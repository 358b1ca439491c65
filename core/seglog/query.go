package seglog

import (
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// StreamQuery is PHP's RecordQuery for stream() (docs/format/segmentedlog.md §4.3). Build it with
// the methods, which validate like PHP; the zero value streams everything.
type StreamQuery struct {
	after    string
	hasAfter bool
	lower    string
	hasLower bool
	upper    string
	hasUpper bool
	where    []whereEqual
	limit    int
	strict   bool // decode every line before judging it (verify: PHP's exact error surface)

	// ContinueOnError, when set, receives "<segment-file>:<offset>" and the
	// error of each undecodable line, which is then skipped.
	ContinueOnError func(location string, err error)
}

type whereEqual struct {
	field string
	value phpjson.Value
}

// After keeps only ids strictly greater than id (byte-wise).
func (q *StreamQuery) After(id string) error {
	if !uuidv7.Valid(id) {
		return uuidv7.ErrInvalid
	}
	q.after, q.hasAfter = id, true
	return nil
}

// TimeRangeMs keeps ids whose timestamp lies in [from, until] (nil = open).
func (q *StreamQuery) TimeRangeMs(from, until *int64) {
	q.hasLower, q.hasUpper = false, false
	if from != nil {
		q.lower, q.hasLower = uuidv7.MinForTimestampMs(*from), true
	}
	if until != nil {
		q.upper, q.hasUpper = uuidv7.MaxForTimestampMs(*until), true
	}
}

// WhereEqual keeps records whose top-level data[field] === value.
func (q *StreamQuery) WhereEqual(field string, value phpjson.Value) {
	q.where = append(q.where, whereEqual{field: field, value: value})
}

// Limit stops after n records (n >= 1).
func (q *StreamQuery) Limit(n int) error {
	if n < 1 {
		return ErrLimit
	}
	q.limit = n
	return nil
}

// seekID is the larger of after and lower, if any is set.
func (q *StreamQuery) seekID() (string, bool) {
	if q.hasAfter && (!q.hasLower || q.after > q.lower) {
		return q.after, true
	}
	return q.lower, q.hasLower
}

// skipSegment applies the min/max rules of docs/format/segmentedlog.md §4.4.
func (q *StreamQuery) skipSegment(min, max string) bool {
	return (q.hasAfter && max <= q.after) || (q.hasLower && max < q.lower) || (q.hasUpper && min > q.upper)
}

// matchIDBytes applies the id filters (to raw id bytes: no string copy).
func (q *StreamQuery) matchIDBytes(id []byte) bool {
	return (!q.hasAfter || string(id) > q.after) && (!q.hasLower || string(id) >= q.lower) && (!q.hasUpper || string(id) <= q.upper)
}

// matchData applies where_equal.
func (q *StreamQuery) matchData(data *phpjson.Array) bool {
	for _, w := range q.where {
		v, ok := data.Lookup(w.field)
		if !ok || !phpjson.Identical(v, w.value) {
			return false
		}
	}
	return true
}
