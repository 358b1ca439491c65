package phpjson

import (
	"math"
	"strconv"
)

// Serialize returns PHP serialize($v) for a decoded value (storh hashes it
// for array operands: VK "z-" + XXH128(serialize(v))):
//
//	null N;  bool b:1;  int i:42;  float d:0.1;  string s:3:"abc";
//	array a:2:{i:0;s:1:"x";s:1:"k";d:1.5;}
//
// Floats use serialize_precision -1: shortest round-trip digits laid out by
// php_gcvt with 'E' and no ".0" for integral values (d:1; d:1.0E+25;
// d:-0; d:INF; d:-INF; d:NAN;). Values of other Go types serialize as N;.
func Serialize(v Value) string {
	return string(AppendSerialize(nil, v))
}

// AppendSerialize appends Serialize(v) to dst.
func AppendSerialize(dst []byte, v Value) []byte {
	switch x := v.(type) {
	case bool:
		if x {
			return append(dst, "b:1;"...)
		}
		return append(dst, "b:0;"...)
	case int64:
		dst = append(dst, "i:"...)
		return append(strconv.AppendInt(dst, x, 10), ';')
	case float64:
		dst = append(dst, "d:"...)
		return append(appendSerializeFloat(dst, x), ';')
	case string:
		return appendSerializeString(dst, x)
	case *Array:
		dst = append(dst, "a:"...)
		dst = strconv.AppendInt(dst, int64(x.Len()), 10)
		dst = append(dst, ":{"...)
		for i := 0; i < x.Len(); i++ {
			k, val := x.At(i)
			if k.isInt {
				dst = append(dst, "i:"...)
				dst = append(strconv.AppendInt(dst, k.num, 10), ';')
			} else {
				dst = appendSerializeString(dst, k.str)
			}
			dst = AppendSerialize(dst, val)
		}
		return append(dst, '}')
	}
	return append(dst, "N;"...)
}

func appendSerializeString(dst []byte, s string) []byte {
	dst = append(dst, "s:"...)
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	dst = append(dst, ':', '"')
	dst = append(dst, s...)
	return append(dst, '"', ';')
}

func appendSerializeFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NAN"...)
	case math.IsInf(f, 1):
		return append(dst, "INF"...)
	case math.IsInf(f, -1):
		return append(dst, "-INF"...)
	}
	var buf [40]byte
	neg, digits, decpt := splitFloat(f, -1, buf[:0])
	return appendPHPLayout(dst, neg, digits, decpt, 'E')
}
