package docindex

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/zeebo/xxh3"

	"storhfs/core/phpjson"
)

// maxPlainStringKey is the longest string whose VK is its hex spelling;
// longer strings are hashed (spec 7.2).
const maxPlainStringKey = 96

// FieldKey is FK(f): the lowercase hex of the field name's bytes.
func FieldKey(field string) string { return hex.EncodeToString([]byte(field)) }

// ValueKey is VK(v), the equality key (spec 7.2):
//
//	int     i-<decimal, '-' as 'm'>         string  s-<hex> (<= 96 bytes) or s-<xxh128>
//	bool    b-1 / b-0                        float   f-<G17, '-'->m '.'->d '+'->p>
//	null    n                                array   z-<xxh128(PHP serialize)>
func ValueKey(v phpjson.Value) string {
	switch x := v.(type) {
	case nil:
		return "n"
	case bool:
		if x {
			return "b-1"
		}
		return "b-0"
	case int64:
		return "i-" + strings.Replace(strconv.FormatInt(x, 10), "-", "m", 1)
	case float64:
		return "f-" + floatKeyReplacer.Replace(g17(x))
	case string:
		if len(x) <= maxPlainStringKey {
			return "s-" + hex.EncodeToString([]byte(x))
		}
		return "s-" + xxh128Hex([]byte(x))
	default:
		return "z-" + xxh128Hex(serialize(v))
	}
}

// floatKeyReplacer maps G17/F24 output to file-name-safe characters.
var floatKeyReplacer = strings.NewReplacer("-", "m", ".", "d", "+", "p")

// RangeKey is RK(v), the sort key of range files (spec 7.2):
//
//	int >= 0          n-<17-digit zero-padded decimal>d000000
//	int < 0, float    n-<F24(float(v)), '-'->m '.'->d>
//	string            s-<hex of all bytes>
//	bool              b-1 / b-0
//	null, array       z-<VK(v)>  (z-n, z-z-<hash>)
func RangeKey(v phpjson.Value) string {
	switch x := v.(type) {
	case int64:
		if x >= 0 {
			s := strconv.FormatInt(x, 10)
			if len(s) < 17 {
				s = strings.Repeat("0", 17-len(s)) + s
			}
			return "n-" + s + "d000000"
		}
		return "n-" + floatKeyReplacer.Replace(f24(float64(x)))
	case float64:
		return "n-" + floatKeyReplacer.Replace(f24(x))
	case string:
		return "s-" + hex.EncodeToString([]byte(x))
	case bool:
		if x {
			return "b-1"
		}
		return "b-0"
	default:
		return "z-" + ValueKey(v)
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
	return "c-" + xxh128Hex(buf)
}

// xxh128Hex is PHP hash('xxh128'): XXH3-128, seed 0, high 64 bits first.
func xxh128Hex(b []byte) string {
	sum := xxh3.Hash128(b).Bytes() // big-endian, Hi first
	return hex.EncodeToString(sum[:])
}

// indexable reports whether v is indexed at all (spec 7.3): null or a scalar.
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
