package conformance

import (
	"fmt"

	"github.com/storhfs/storhfs/core/phpjson"
)

// RecordValue is a record as results.jsonl writes it (README 4):
// {"id": id, "data": data}, with nil data as [] (PHP's empty array).
func RecordValue(id string, data *phpjson.Array) *phpjson.Array {
	if data == nil {
		data = phpjson.NewArray(0)
	}
	a := phpjson.NewArray(2)
	a.SetString("id", id)
	a.SetString("data", data)
	return a
}

// ListOf returns the PHP list [value(items[0]), value(items[1]), ...].
func ListOf[T, V any](items []T, value func(T) V) *phpjson.Array {
	out := phpjson.NewArray(len(items))
	for _, it := range items {
		out.Append(value(it))
	}
	return out
}

// IntResult is the result of an op whose PHP call returns an int: n as a
// PHP int, or the call's error.
func IntResult[N ~int | ~int64](n N, err error) (phpjson.Value, error) {
	if err != nil {
		return nil, err
	}
	return int64(n), nil
}

// Result is the result of an op whose PHP call returns a value:
// value(item), or the call's error.
func Result[T, V any](item T, err error, value func(T) V) (phpjson.Value, error) {
	if err != nil {
		return nil, err
	}
	return value(item), nil
}

// NullableResult is the result of an op whose PHP call returns a value or
// null: value(*item), null for a nil item, or the call's error.
func NullableResult[T, V any](item *T, err error, value func(T) V) (phpjson.Value, error) {
	if err != nil || item == nil {
		return nil, err
	}
	return value(*item), nil
}

// ListResult is the result of an op whose PHP call returns a list: the
// list of value(item), or the call's error.
func ListResult[T, V any](items []T, err error, value func(T) V) (phpjson.Value, error) {
	if err != nil {
		return nil, err
	}
	return ListOf(items, value), nil
}

// QueryBuilder is the terminal half of an engine's query builder, after
// the op's "build" steps are applied (README 4.6). R is its record type.
type QueryBuilder[R any] interface {
	Get() ([]R, error)
	First() (*R, error)
	Count() (int, error)
	Explain() (*phpjson.Array, error)
}

// QueryOp runs a "query" op (README 4.6): apply (ApplySteps) adds
// the op's "build" steps to base, the engine's fresh builder, then the op's
// "call" runs on the result: get (list of records), first (record or
// null), count (int) or explain (PHP array). record encodes one R with
// RecordValue.
func QueryOp[R any, B QueryBuilder[R]](op *phpjson.Array, base B, apply func(B, *phpjson.Array) (B, error), record func(R) *phpjson.Array) (phpjson.Value, error) {
	b, err := apply(base, OpArray(op, "build"))
	if err != nil {
		return nil, err
	}
	return queryCall(b, OpString(op, "call"), record)
}

func queryCall[R any](b QueryBuilder[R], call string, record func(R) *phpjson.Array) (phpjson.Value, error) {
	switch call {
	case "get":
		recs, err := b.Get()
		return ListResult(recs, err, record)
	case "first":
		r, err := b.First()
		return NullableResult(r, err, record)
	case "count":
		return IntResult(b.Count())
	case "explain":
		plan, err := b.Explain()
		return Result(plan, err, func(p *phpjson.Array) *phpjson.Array { return p })
	}
	return nil, fmt.Errorf("executor: unknown query call %q", call)
}
