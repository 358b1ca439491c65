package docindex

import (
	"encoding/hex"
	"strconv"

	"github.com/zeebo/xxh3"

	"github.com/storhfs/storhfs/core/phpjson"
)

// maxPlainStringKey is the longest string whose VK is its hex spelling;
// longer strings are hashed (docs/format/indexes.md §3.2).
const maxPlainStringKey = 96

// FieldKey is FK(f): the lowercase hex of the field name's bytes.
func FieldKey(field string) string { return hex.EncodeToString([]byte(field)) }

// ValueKey is VK(v), the equality key (docs/format/indexes.md §3.2):
//
//	int     i-<decimal, '-' as 'm'>         string  s-<hex> (<= 96 bytes) or s-<xxh128>
//	bool    b-1 / b-0                        float   f-<G17, '-'->m '.'->d '+'->p>
//	null    n                                array   z-<xxh128(PHP serialize)>
func ValueKey(v phpjson.Value) string { return string(appendValueKey(nil, v)) }

// appendValueKey appends VK(v) to dst.
func appendValueKey(dst []byte, v phpjson.Value) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, 'n')
	case bool:
		if x {
			return append(dst, "b-1"...)
		}
		return append(dst, "b-0"...)
	case int64:
		dst = append(dst, "i-"...)
		if x < 0 {
			dst = append(dst, 'm')
			return strconv.AppendUint(dst, uint64(-(x+1))+1, 10) // -MinInt64 overflows int64
		}
		return strconv.AppendInt(dst, x, 10)
	case float64:
		return appendFloatKey(append(dst, "f-"...), phpjson.G17(x))
	case string:
		if len(x) <= maxPlainStringKey {
			return appendHex(append(dst, "s-"...), x)
		}
		return appendXXH128(append(dst, "s-"...), x)
	default:
		return appendXXH128(append(dst, "z-"...), string([]byte(phpjson.Serialize(v))))
	}
}

// appendFloatKey appends a G17/F24 spelling with '-'->m '.'->d '+'->p, so
// the key is file-name safe.
func appendFloatKey(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '-':
			c = 'm'
		case '.':
			c = 'd'
		case '+':
			c = 'p'
		}
		dst = append(dst, c)
	}
	return dst
}

// RangeKey is RK(v), the sort key of range files (docs/format/indexes.md §3.3):
//
//	int >= 0          n-<17-digit zero-padded decimal>d000000
//	int < 0, float    n-<F24(float(v)), '-'->m '.'->d>
//	string            s-<hex of all bytes>
//	bool              b-1 / b-0
//	null, array       z-<VK(v)>  (z-n, z-z-<hash>)
func RangeKey(v phpjson.Value) string { return string(appendRangeKey(nil, v)) }

// appendRangeKey appends RK(v) to dst.
func appendRangeKey(dst []byte, v phpjson.Value) []byte {
	switch x := v.(type) {
	case int64:
		dst = append(dst, "n-"...)
		if x >= 0 {
			var digits [20]byte
			d := strconv.AppendInt(digits[:0], x, 10)
			for i := len(d); i < 17; i++ {
				dst = append(dst, '0')
			}
			dst = append(dst, d...)
			return append(dst, "d000000"...)
		}
		return appendFloatKey(dst, phpjson.F24(float64(x)))
	case float64:
		return appendFloatKey(append(dst, "n-"...), phpjson.F24(x))
	case string:
		return appendHex(append(dst, "s-"...), x)
	case bool:
		if x {
			return append(dst, "b-1"...)
		}
		return append(dst, "b-0"...)
	default:
		return appendValueKey(append(dst, "z-"...), v)
	}
}

// CompoundKey is CK(a, b) = c-<xxh128(VK(a) \0 VK(b))>.
func CompoundKey(a, b phpjson.Value) string {
	return compoundKeyOf(ValueKey(a), ValueKey(b))
}

func compoundKeyOf(vkA, vkB string) string {
	buf := make([]byte, 0, len(vkA)+1+len(vkB))
	buf = append(buf, vkA...)
	buf = append(buf, 0)
	buf = append(buf, vkB...)
	return string(appendXXH128(append(make([]byte, 0, 34), "c-"...), string(buf)))
}

func appendXXH128(dst []byte, s string) []byte {
	sum := xxh3.HashString128(s).Bytes() // big-endian, Hi first
	return hex.AppendEncode(dst, sum[:])
}

// appendHex appends the lowercase hex of s's bytes.
func appendHex(dst []byte, s string) []byte {
	const digits = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		dst = append(dst, digits[s[i]>>4], digits[s[i]&15])
	}
	return dst
}

// indexable reports whether v is indexed at all (docs/format/indexes.md §4): null or a scalar.
func indexable(v phpjson.Value) bool {
	switch v.(type) {
	case nil, bool, int64, float64, string:
		return true
	}
	return false
}

// fieldValue returns data[field] when the field is present and indexable.
func fieldValue(data *phpjson.Array, field string) (phpjson.Value, bool) {
	if data == nil {
		return nil, false
	}
	v, ok := data.Lookup(field)
	if !ok || !indexable(v) {
		return nil, false
	}
	return v, true
}
