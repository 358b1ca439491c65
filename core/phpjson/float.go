package phpjson

import (
	"math"
	"strconv"
)

// The three float text forms storh uses (docs/format/phpjson.md §2.3, docs/format/indexes.md §3.5):
//   FormatFloat: json_encode with serialize_precision -1 and
//                JSON_PRESERVE_ZERO_FRACTION ("1.0", "1.0e+25", "-0.0");
//   G17:         sprintf('%.17G') ("0.10000000000000001", "1.0E+22", "-0");
//   F24:         sprintf('%024.6F') ("00000000000000001.500000").

// FormatFloat returns the JSON text of a finite f ("NAN"/"INF" style text
// is never produced: callers must reject non-finite values first; this
// returns "0" for them, as PHP writes before failing).
func FormatFloat(f float64) string {
	var buf [40]byte
	return string(appendJSONFloat(buf[:0], f))
}

// G17 returns PHP sprintf('%.17G', f). Non-finite values give PHP
// sprintf's "INF" (for both signs) and "NaN".
func G17(f float64) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	if math.IsInf(f, 0) {
		return "INF"
	}
	var buf [40]byte
	neg, digits, decpt := splitFloat(f, 16, buf[:0])
	var out [48]byte
	return string(appendPHPLayout(out[:0], neg, digits, decpt, 'E'))
}

// F24 returns PHP sprintf('%024.6F', f): fixed notation with six
// decimals, zero-padded to 24 characters; negative zero has no sign.
// Non-finite values give PHP 8.2 sprintf's unpadded "INF" and "NaN", and
// "-NF" for -INF (its zero padding overwrites the 'I').
func F24(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-NF"
	}
	neg := f < 0
	var buf [400]byte
	digits := strconv.AppendFloat(buf[:0], math.Abs(f), 'f', 6, 64)
	width := 24
	if neg {
		width = 23
	}
	out := make([]byte, 0, max(width, len(digits))+1)
	if neg {
		out = append(out, '-')
	}
	for n := len(digits); n < width; n++ {
		out = append(out, '0')
	}
	return string(append(out, digits...))
}

// appendJSONFloat appends storh's JSON text of f.
func appendJSONFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, '0')
	}
	var buf [40]byte
	neg, digits, decpt := splitFloat(f, -1, buf[:0])
	start := len(dst)
	dst = appendPHPLayout(dst, neg, digits, decpt, 'e')
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, '.', '0')
}

// splitFloat returns the sign bit, the significant digits without trailing
// zeros (in scratch), and the decimal point position: |f| = 0.digits x 10^decpt.
// prec is strconv's precision for the 'e' format (-1: shortest round trip).
func splitFloat(f float64, prec int, scratch []byte) (neg bool, digits []byte, decpt int) {
	neg = math.Signbit(f)
	a := math.Abs(f)
	if a == 0 {
		return neg, append(scratch, '0'), 1
	}
	s := strconv.AppendFloat(scratch, a, 'e', prec, 64) // d.ddde±XX
	e := len(s) - 1
	for s[e] != 'e' {
		e--
	}
	exp := 0
	expNeg := s[e+1] == '-'
	for _, c := range s[e+2:] {
		exp = exp*10 + int(c-'0')
	}
	if expNeg {
		exp = -exp
	}
	digits = s[:0]
	for _, c := range s[:e] {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return neg, digits, exp + 1
}

// appendPHPLayout lays out significant digits like PHP's php_gcvt with
// precision 17: exponential iff decpt < -3 or decpt > 17.
func appendPHPLayout(dst []byte, neg bool, digits []byte, decpt int, expChar byte) []byte {
	if neg {
		dst = append(dst, '-')
	}
	if decpt < -3 || decpt > 17 {
		dst = append(dst, digits[0], '.')
		if len(digits) > 1 {
			dst = append(dst, digits[1:]...)
		} else {
			dst = append(dst, '0')
		}
		dst = append(dst, expChar)
		e := decpt - 1
		if e < 0 {
			dst = append(dst, '-')
			e = -e
		} else {
			dst = append(dst, '+')
		}
		return strconv.AppendInt(dst, int64(e), 10)
	}
	if decpt <= 0 {
		dst = append(dst, '0', '.')
		for i := 0; i < -decpt; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	for i := 0; i < decpt; i++ {
		if i < len(digits) {
			dst = append(dst, digits[i])
		} else {
			dst = append(dst, '0')
		}
	}
	if len(digits) > decpt {
		dst = append(dst, '.')
		dst = append(dst, digits[decpt:]...)
	}
	return dst
}
