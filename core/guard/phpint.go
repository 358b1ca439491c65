package guard

import (
	"math"
	"strconv"
)

// PHPIntCast is PHP's (int) cast of a string, as far as it matters for
// comparing with a byte length: leading whitespace, a sign, digits, an
// optional fraction and exponent; trailing junk ignored; no number = 0.
// "101abc" -> 101, "0101" -> 101, "1e2" -> 100. Values that do not fit in
// int64 give -1 (no payload has that length).
func PHPIntCast(s []byte) int64 {
	// Fast path: plain decimal digits, as every writer produces.
	if len(s) > 0 && len(s) <= 18 {
		var v int64
		plain := true
		for _, c := range s {
			if c < '0' || c > '9' {
				plain = false
				break
			}
			v = v*10 + int64(c-'0')
		}
		if plain {
			return v
		}
	}
	i := 0
	for i < len(s) && isPHPSpace(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	isFloat := false
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if digits > 0 || j > i+1 {
			digits += j - i - 1
			isFloat = true
			i = j
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			isFloat = true
			i = j
		}
	}
	num := string(s[start:i])
	if !isFloat {
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return -1
		}
		return v
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || f >= 9.2e18 || f <= -9.2e18 {
		return -1
	}
	return int64(f)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isPHPSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
