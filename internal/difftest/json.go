package difftest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/storhfs/storhfs/core/phpjson"
)

// The generator builds op lines from these plain values and writes them
// without a depth limit (phpjson.Encode stops at PHP's 512, and the point
// of some ops is to go past it). Strings are escaped the way PHP writes
// them, so an op line reads back the same in PHP and in Go.

// obj is a JSON object with its members in order.
type obj []member

type member struct {
	key string
	val any
}

// raw is JSON text put into a line as it is (deep values, odd spellings).
type raw string

// o builds an obj from alternating keys and values.
func o(kv ...any) obj {
	if len(kv)%2 != 0 {
		panic("difftest: o needs key/value pairs")
	}
	out := make(obj, 0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		out = append(out, member{kv[i].(string), kv[i+1]})
	}
	return out
}

// with returns a copy of x with key set to val (replaced in place, or appended).
func (x obj) with(key string, val any) obj {
	out := append(obj(nil), x...)
	for i := range out {
		if out[i].key == key {
			out[i].val = val
			return out
		}
	}
	return append(out, member{key, val})
}

// encode writes v as one line of JSON.
func encode(v any) string {
	var sb strings.Builder
	write(&sb, v)
	return sb.String()
}

func write(sb *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		sb.WriteString("null")
	case bool:
		sb.WriteString(strconv.FormatBool(x))
	case int:
		sb.WriteString(strconv.Itoa(x))
	case int64:
		sb.WriteString(strconv.FormatInt(x, 10))
	case float64:
		sb.WriteString(phpjson.FormatFloat(x))
	case string:
		b, err := phpjson.AppendString(nil, x)
		if err != nil {
			panic(fmt.Sprintf("difftest: string %q: %v", x, err))
		}
		sb.Write(b)
	case raw:
		sb.WriteString(string(x))
	case obj:
		sb.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				sb.WriteByte(',')
			}
			write(sb, m.key)
			sb.WriteByte(':')
			write(sb, m.val)
		}
		sb.WriteByte('}')
	case []any:
		sb.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				sb.WriteByte(',')
			}
			write(sb, e)
		}
		sb.WriteByte(']')
	case []string:
		sb.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				sb.WriteByte(',')
			}
			write(sb, e)
		}
		sb.WriteByte(']')
	default:
		panic(fmt.Sprintf("difftest: cannot encode %T", v))
	}
}

// nested returns leaf inside depth arrays (list form) or objects
// {"a": ...} (object form): a value whose own nesting depth is depth
// when leaf is a scalar.
func nested(depth int, leaf string, asObject bool) raw {
	var sb strings.Builder
	for range depth {
		if asObject {
			sb.WriteString(`{"a":`)
		} else {
			sb.WriteByte('[')
		}
	}
	sb.WriteString(leaf)
	for range depth {
		if asObject {
			sb.WriteByte('}')
		} else {
			sb.WriteByte(']')
		}
	}
	return raw(sb.String())
}
