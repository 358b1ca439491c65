package conformance

import (
	"errors"

	"github.com/storhfs/storhfs/core/phpjson"
)

// Member access for executors. An op line is a decoded JSON object; a
// member that is absent or of another type reads as the zero value, the
// way the corpus README's PHP runner passes it on.

// OpValue returns op[key], nil when op is nil or has no such member.
func OpValue(op *phpjson.Array, key string) phpjson.Value {
	if op == nil {
		return nil
	}
	v, _ := op.Lookup(key)
	return v
}

// OpString returns op[key] when it is a string, "" otherwise.
func OpString(op *phpjson.Array, key string) string {
	s, _ := OpValue(op, key).(string)
	return s
}

// OpInt returns op[key] and true when it is an integer.
func OpInt(op *phpjson.Array, key string) (int64, bool) {
	n, ok := OpValue(op, key).(int64)
	return n, ok
}

// OpIntOr returns op[key] when it is an integer, def otherwise.
func OpIntOr(op *phpjson.Array, key string, def int64) int64 {
	if n, ok := OpInt(op, key); ok {
		return n
	}
	return def
}

// OpArray returns op[key] when it is an array (JSON list or object), nil
// otherwise.
func OpArray(op *phpjson.Array, key string) *phpjson.Array {
	a, _ := OpValue(op, key).(*phpjson.Array)
	return a
}

// OpList returns the values of op[key] in order when it is an array, nil
// otherwise.
func OpList(op *phpjson.Array, key string) []phpjson.Value {
	if a := OpArray(op, key); a != nil {
		return a.Values()
	}
	return nil
}

// ErrIDSequenceExhausted is returned by an IDSequence generator asked for
// more ids than the op listed.
var ErrIDSequenceExhausted = errors.New("executor: id_sequence exhausted")

// IDSequence returns the custom id generator of an open op's
// "id_sequence" (README 4.1): its entries in order (a non-string entry is
// ""), then ErrIDSequenceExhausted. nil when the op has no id_sequence
// array, meaning "use the engine's own generator".
func IDSequence(op *phpjson.Array) func() (string, error) {
	seq := OpArray(op, "id_sequence")
	if seq == nil {
		return nil
	}
	ids := seq.Values()
	return func() (string, error) {
		if len(ids) == 0 {
			return "", ErrIDSequenceExhausted
		}
		id, _ := ids[0].(string)
		ids = ids[1:]
		return id, nil
	}
}

// RowFeed returns a generator over rows in order, the shape of the
// putStream/appendStream row source: (row, true, nil) per row, then
// (nil, false, nil) for good.
func RowFeed(rows []phpjson.Value) func() (phpjson.Value, bool, error) {
	return func() (phpjson.Value, bool, error) {
		if len(rows) == 0 {
			return nil, false, nil
		}
		row := rows[0]
		rows = rows[1:]
		return row, true, nil
	}
}
