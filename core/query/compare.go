package query

import (
	"bytes"
	"cmp"
	"math"
	"strings"

	"github.com/storhfs/storhfs/core/phpjson"
)

// Compare is storh's QueryCondition::compare (docs/format/docstore.md §8.5); only the
// sign of the result matters:
//
//  1. both int/float: numeric (an int against a float is converted);
//  2. both strings: bytewise;
//  3. both bools: false < true;
//  4. both null: equal;
//  5. otherwise the PHP pretty JSON texts of {"value": a} and {"value": b}
//     compared bytewise.
//
// For rule 5 between different types the first character of the value's
// pretty text decides ('"' < '-' < digits < '[' < 'f' < 'n' < 't' < '{'),
// so only two arrays need to be encoded. The error is the encoder's (an INF
// float inside an array cannot be encoded, PHP throws the same).
func Compare(a, b phpjson.Value) (int, error) {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmp.Compare(x, y), nil
		case float64:
			return cmpFloat(float64(x), y), nil
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return cmpFloat(x, float64(y)), nil
		case float64:
			return cmpFloat(x, y), nil
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), nil
		}
	case bool:
		if y, ok := b.(bool); ok {
			return cmpBool(x, y), nil
		}
	case nil:
		if b == nil {
			return 0, nil
		}
	}
	la, lb := leadByte(a), leadByte(b)
	if la != lb {
		if la < lb {
			return -1, nil
		}
		return 1, nil
	}
	// Same lead byte with different PHP types (or equal types not handled
	// above) only happens for two arrays.
	pa, err := prettyValue(a)
	if err != nil {
		return 0, err
	}
	pb, err := prettyValue(b)
	if err != nil {
		return 0, err
	}
	return bytes.Compare(pa, pb), nil
}

// leadByte is the first byte of v's PHP pretty JSON text.
func leadByte(v phpjson.Value) byte {
	switch x := v.(type) {
	case string:
		return '"'
	case int64:
		if x < 0 {
			return '-'
		}
		return '0'
	case float64:
		if math.Signbit(x) {
			return '-' // -0.0 is written "-0.0"
		}
		return '0'
	case bool:
		if x {
			return 't'
		}
		return 'f'
	case nil:
		return 'n'
	case *phpjson.Array:
		if x == nil || x.IsList() {
			return '['
		}
		return '{'
	}
	return 0
}

// prettyValue is Jsonc::encode_object(["value" => v]).
func prettyValue(v phpjson.Value) ([]byte, error) {
	wrap := phpjson.NewArray(1)
	wrap.SetString("value", v)
	return phpjson.EncodePretty(wrap)
}

// cmpFloat is <=> for floats. Not cmp.Compare, which orders NaN before
// every number: here a NaN is neither smaller nor greater.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}
