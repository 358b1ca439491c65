package queue

import (
	"strconv"

	"storhfs/core/phpjson"
)

// appendPayloadFast is appendPayloadJSON for the payloads EnqueueMany
// encodes: the same bytes, and an error exactly when appendPayloadJSON
// fails (encodefast_test.go compares both), with strings that need no
// escaping copied in one piece and everything else left to phpjson. The
// error itself may differ (appendPayloadJSON gives the one to report). On
// an error dst holds a partial encoding.
func appendPayloadFast(dst []byte, payload *phpjson.Array) ([]byte, error) {
	if payload == nil || payload.Len() == 0 {
		return append(dst, '[', ']'), nil
	}
	return appendArrayFast(dst, payload, maxPayloadDepth)
}

// appendArrayFast encodes a, which may open limit more array levels
// (limit counts as in depthExceeds: every array, empty or nil, is a level).
func appendArrayFast(dst []byte, a *phpjson.Array, limit int) ([]byte, error) {
	if limit <= 0 {
		return dst, ErrPayloadTooDeep
	}
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
			if dst, err = appendKeyFast(dst, k); err != nil {
				return dst, err
			}
		}
		if dst, err = appendValueFast(dst, a.Values()[i], limit-1); err != nil {
			return dst, err
		}
	}
	return append(dst, closer), nil
}

// appendKeyFast appends k as an object member name, with the ':'.
func appendKeyFast(dst []byte, k phpjson.Key) ([]byte, error) {
	if k.IsInt() {
		dst = append(dst, '"')
		dst = strconv.AppendInt(dst, k.Int(), 10)
		return append(dst, '"', ':'), nil
	}
	if s := k.String(); plainString(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"', ':'), nil
	}
	dst, err := phpjson.AppendString(dst, k.String())
	return append(dst, ':'), err
}

// appendValueFast encodes v; an array in v may open limit more levels.
func appendValueFast(dst []byte, v phpjson.Value, limit int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case int64:
		if uint64(x) < 100000 { // the common small ids and counts, without strconv
			return appendSmallUint(dst, uint64(x)), nil
		}
		return strconv.AppendInt(dst, x, 10), nil
	case string:
		return appendStringFast(dst, x)
	case *phpjson.Array:
		return appendArrayFast(dst, x, limit) // a nil *Array is an empty one
	}
	return phpjson.AppendEncode(dst, v) // floats and anything unusual
}

// appendSmallUint appends v < 100000 in decimal.
func appendSmallUint(dst []byte, v uint64) []byte {
	n := decimalLen(int(v))
	dst = append(dst, "00000"[:n]...)
	putUint(dst[len(dst)-n:], v)
	return dst
}

// appendStringFast copies s between quotes when every byte stands for
// itself (ASCII from 0x20, DEL included, except '"' and '\'); any other
// string goes through phpjson.AppendString.
func appendStringFast(dst []byte, s string) ([]byte, error) {
	if !plainString(s) {
		return phpjson.AppendString(dst, s)
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), nil
}

// plainString reports whether every byte of s stands for itself in a JSON
// string (see appendStringFast): 8 bytes at a time, the last 8 overlapping
// the word before them, and a string shorter than 8 byte by byte.
func plainString(s string) bool {
	if len(s) < 8 {
		for i := 0; i < len(s); i++ {
			// c-0x20 >= 0x60: c < 0x20 or c >= 0x80 (unsigned wrap).
			if c := s[i]; c-0x20 >= 0x60 || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	for i := 0; i+8 < len(s); i += 8 {
		if !plainWord(load8(s, i)) {
			return false
		}
	}
	return plainWord(load8(s, len(s)-8))
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
