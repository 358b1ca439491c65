package queue

import (
	"strconv"

	"storhfs/core/phpjson"
)

// appendPayloadFast is phpjson.AppendEncode for the payloads EnqueueMany
// streams (already checked by encodablePayload or appendPayloadJSON): the
// same bytes (encodefast_test.go compares them), with strings that need no
// escaping copied in one piece and everything else left to phpjson. On an
// error dst holds a partial encoding.
func appendPayloadFast(dst []byte, payload *phpjson.Array) ([]byte, error) {
	if payload == nil || payload.Len() == 0 {
		return append(dst, '[', ']'), nil
	}
	return appendArrayFast(dst, payload)
}

func appendArrayFast(dst []byte, a *phpjson.Array) ([]byte, error) {
	if a.Len() == 0 {
		return append(dst, '[', ']'), nil
	}
	list := a.IsList()
	closer := byte('}')
	if list {
		dst, closer = append(dst, '['), ']'
	} else {
		dst = append(dst, '{')
	}
	var err error
	for i, k := range a.Keys() {
		if i > 0 {
			dst = append(dst, ',')
		}
		if !list {
			if k.IsInt() {
				dst = append(dst, '"')
				dst = strconv.AppendInt(dst, k.Int(), 10)
				dst = append(dst, '"')
			} else if dst, err = appendStringFast(dst, k.String()); err != nil {
				return dst, err
			}
			dst = append(dst, ':')
		}
		if dst, err = appendValueFast(dst, a.Values()[i]); err != nil {
			return dst, err
		}
	}
	return append(dst, closer), nil
}

func appendValueFast(dst []byte, v phpjson.Value) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case string:
		return appendStringFast(dst, x)
	case *phpjson.Array:
		if x == nil {
			return append(dst, '[', ']'), nil
		}
		return appendArrayFast(dst, x)
	}
	return phpjson.AppendEncode(dst, v) // floats and anything unusual
}

// appendStringFast copies s between quotes when every byte stands for
// itself (ASCII from 0x20, DEL included, except '"' and '\'); any other
// string goes through phpjson.AppendString.
func appendStringFast(dst []byte, s string) ([]byte, error) {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if !plainWord(load8(s, i)) {
			return phpjson.AppendString(dst, s)
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return phpjson.AppendString(dst, s)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), nil
}

const (
	ones8 = 0x0101010101010101
	high8 = 0x8080808080808080
)

// plainWord reports whether all 8 bytes of w stand for themselves in a
// JSON string (see appendStringFast). The tests are exact for the
// existence of a matching byte: a borrow only starts at a byte that matches.
func plainWord(w uint64) bool {
	quote, backslash := w^(ones8*'"'), w^(ones8*'\\')
	bad := w & high8                                // non-ASCII
	bad |= (w - ones8*0x20) &^ w & high8            // a byte < 0x20
	bad |= (quote - ones8) &^ quote & high8         // a '"'
	bad |= (backslash - ones8) &^ backslash & high8 // a '\\'
	return bad == 0
}

// load8 reads s[i:i+8] as a little-endian word (one load on amd64).
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}
