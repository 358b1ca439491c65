package queue

import (
	"math"
	"unicode/utf8"

	"storhfs/core/phpjson"
)

// encodablePayload reports whether appendPayloadJSON(payload) will succeed,
// without encoding: EnqueueMany checks every payload this way before it
// locks, then encodes straight into the streamed chunks (appendPayloadFast,
// the same bytes). It must be sound (true only if the encoding succeeds;
// encodable_test.go fuzzes that); a false is settled by appendPayloadJSON,
// which also gives the exact error.
//
// appendPayloadJSON fails for a payload nested more than maxPayloadDepth
// arrays deep, and phpjson.AppendEncode for invalid UTF-8 in a string or
// key, NaN or Inf, and values of types outside the JSON model.
func encodablePayload(payload *phpjson.Array) bool {
	if payload == nil || payload.Len() == 0 {
		return true
	}
	return encodableArray(payload, maxPayloadDepth)
}

// encodableArray checks a, which may open limit more levels (limit counts
// as in depthExceeds).
func encodableArray(a *phpjson.Array, limit int) bool {
	if limit <= 0 {
		return false
	}
	if a == nil {
		return true // encoded as []
	}
	for _, k := range a.Keys() {
		if !k.IsInt() && !validUTF8(k.String()) {
			return false
		}
	}
	for _, v := range a.Values() {
		switch x := v.(type) {
		case nil, bool, int64:
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		case string:
			if !validUTF8(x) {
				return false
			}
		case *phpjson.Array:
			if !encodableArray(x, limit-1) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// validUTF8 is utf8.ValidString with the ASCII prefix skipped inline, 8
// bytes at a time (payload strings and keys are mostly short and ASCII).
func validUTF8(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if load8(s, i)&high8 != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf8.ValidString(s[i:])
		}
	}
	return true
}
