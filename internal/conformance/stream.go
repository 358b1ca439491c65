package conformance

import (
	"errors"

	"github.com/storhfs/storhfs/core/phpjson"
)

// StreamQuery is an engine's stream query in the terms of README 4.5 (PHP
// RecordQuery). Each setter returns the exception PHP's call throws.
type StreamQuery interface {
	After(id string) error
	TimeRangeMs(fromMs, untilMs *int64) error
	WhereEqual(field string, value phpjson.Value) error
	Limit(n int) error
	// ContinueOnError makes the stream report each unreadable record
	// (key: id or "segment:offset") to skip and go on.
	ContinueOnError(skip func(key string, err error))
}

// Emit receives one streamed record.
type Emit func(id string, data *phpjson.Array)

var (
	errWhereEqualShape = errors.New("executor: where_equal must be a list of [field, value] pairs")
	errLimitType       = errors.New("executor: limit must be an integer")
)

// Stream runs a "stream" op (README 4.5). It applies the members of op's
// "query" object to q in README order (after, time_range_ms if from_ms or
// until_ms is present, each where_equal pair, limit, continue_on_error),
// stopping at the first error, then calls run, which streams with q and
// passes each record to emit. Result: the list of records;
// {"records", "skipped"} with continue_on_error; {"error", "partial"} when
// run fails.
func Stream(op *phpjson.Array, q StreamQuery, run func(emit Emit) error) (phpjson.Value, error) {
	skipped, err := applyStreamQuery(OpArray(op, "query"), q)
	if err != nil {
		return nil, err
	}
	records := phpjson.NewArray(0)
	if err := run(func(id string, data *phpjson.Array) { records.Append(RecordValue(id, data)) }); err != nil {
		out := phpjson.NewArray(2)
		out.SetString("error", err.Error())
		out.SetString("partial", records)
		return out, nil
	}
	if skipped == nil {
		return records, nil
	}
	out := phpjson.NewArray(2)
	out.SetString("records", records)
	out.SetString("skipped", skipped)
	return out, nil
}

// applyStreamQuery applies query (nil: none) to q; skipped is the list the
// continue_on_error handler fills, nil without continue_on_error.
func applyStreamQuery(query *phpjson.Array, q StreamQuery) (skipped *phpjson.Array, err error) {
	if query == nil {
		return nil, nil
	}
	if v, ok := query.Lookup("after"); ok {
		id, _ := v.(string)
		if err := q.After(id); err != nil {
			return nil, err
		}
	}
	from, hasFrom := query.Lookup("from_ms")
	until, hasUntil := query.Lookup("until_ms")
	if hasFrom || hasUntil {
		if err := q.TimeRangeMs(intPtr(from), intPtr(until)); err != nil {
			return nil, err
		}
	}
	if v, ok := query.Lookup("where_equal"); ok {
		if err := applyWhereEqual(v, q); err != nil {
			return nil, err
		}
	}
	if v, ok := query.Lookup("limit"); ok {
		n, isInt := v.(int64)
		if !isInt {
			return nil, errLimitType
		}
		if err := q.Limit(int(n)); err != nil {
			return nil, err
		}
	}
	if v, ok := query.Lookup("continue_on_error"); ok && v == true {
		skipped = phpjson.NewArray(0)
		q.ContinueOnError(func(key string, err error) {
			item := phpjson.NewArray(2)
			item.SetString("key", key)
			item.SetString("error", err.Error())
			skipped.Append(item)
		})
	}
	return skipped, nil
}

// applyWhereEqual calls q.WhereEqual for each [field, value] pair of
// pairs, in order (a non-string field is "").
func applyWhereEqual(pairs phpjson.Value, q StreamQuery) error {
	list, ok := pairs.(*phpjson.Array)
	if !ok {
		return errWhereEqualShape
	}
	for _, p := range list.Values() {
		pair, ok := p.(*phpjson.Array)
		if !ok || pair.Len() != 2 {
			return errWhereEqualShape
		}
		field, _ := pair.Values()[0].(string)
		if err := q.WhereEqual(field, pair.Values()[1]); err != nil {
			return err
		}
	}
	return nil
}

// intPtr is v as a nullable integer: nil unless v is an int.
func intPtr(v phpjson.Value) *int64 {
	n, ok := v.(int64)
	if !ok {
		return nil
	}
	return &n
}
