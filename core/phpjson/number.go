package phpjson

import "strconv"

// scanNumber reads PHP's INT | FLOAT | EXP token at s[start] (longest
// match) and returns its value and the position after it. ok is false when
// there is no number ("-" alone).
func scanNumber(s string, start int) (v Value, next int, ok bool) {
	p := start
	neg := s[p] == '-'
	if neg {
		p++
	}
	if p >= len(s) || s[p] < '0' || s[p] > '9' {
		return nil, 0, false
	}
	if s[p] == '0' {
		p++
	} else {
		for p < len(s) && s[p] >= '0' && s[p] <= '9' {
			p++
		}
	}
	intEnd := p
	fracEnd := p // end of the fraction digits (== intEnd when there are none)
	isFloat := false
	if p+1 < len(s) && s[p] == '.' && s[p+1] >= '0' && s[p+1] <= '9' {
		p += 2
		for p < len(s) && s[p] >= '0' && s[p] <= '9' {
			p++
		}
		fracEnd = p
		isFloat = true
	}
	if p < len(s) && (s[p] == 'e' || s[p] == 'E') {
		q := p + 1
		if q < len(s) && (s[q] == '+' || s[q] == '-') {
			q++
		}
		if q < len(s) && s[q] >= '0' && s[q] <= '9' {
			for q < len(s) && s[q] >= '0' && s[q] <= '9' {
				q++
			}
			p = q
			isFloat = true
		}
	}
	if !isFloat {
		digits := s[start:intEnd]
		if neg {
			digits = digits[1:]
		}
		// PHP: fewer than 19 digits, or 19 digits below "9223372036854775808"
		// (equal allowed when negative), is a long; else a double.
		if len(digits) < 19 || (len(digits) == 19 && (digits < "9223372036854775808" || (neg && digits == "9223372036854775808"))) {
			var u uint64
			for i := 0; i < len(digits); i++ {
				u = u*10 + uint64(digits[i]-'0')
			}
			if neg {
				return -int64(u), p, true // -9223372036854775808 wraps correctly
			}
			return int64(u), p, true
		}
	}
	if f, exact := exactFloat(s, start, intEnd, fracEnd, p, neg); exact {
		return f, p, true
	}
	f, err := strconv.ParseFloat(s[start:p], 64)
	if err != nil {
		// Only range errors are possible for this syntax: PHP's zend_strtod
		// gives the same ±Inf (or 0 on underflow).
		if ne, isNum := err.(*strconv.NumError); !isNum || ne.Err != strconv.ErrRange {
			return nil, 0, false
		}
	}
	return f, p, true
}

// exactPow10 holds the powers of ten that float64 represents exactly.
var exactPow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// exactFloat is the correctly rounded value of the number token
// s[start:end] (syntax already checked: sign, int digits up to intEnd,
// optional '.' and fraction digits up to fracEnd, optional exponent) when
// it can be had with one exact floating-point operation (Clinger's fast
// path): at most 15 significant digits, so the digits form an integer
// m < 2^53 held exactly, and a decimal exponent e with |e| <= 22, so 10^|e|
// is exact too; m*10^e or m/10^e is then one IEEE operation, correctly
// rounded like strconv.ParseFloat and PHP's zend_strtod. exact is false
// for anything else (the caller parses it in full).
func exactFloat(s string, start, intEnd, fracEnd, end int, neg bool) (f float64, exact bool) {
	digitsStart := start
	if neg {
		digitsStart++
	}
	var m uint64
	nd := 0 // digits taken into m, leading zeros excluded
	for i := digitsStart; i < fracEnd; i++ {
		c := s[i]
		if c == '.' {
			continue
		}
		if m == 0 && c == '0' {
			continue
		}
		m = m*10 + uint64(c-'0')
		nd++
		if nd > 15 {
			return 0, false
		}
	}
	e := 0
	if fracEnd > intEnd {
		e = -(fracEnd - intEnd - 1) // fraction digits
	}
	if fracEnd < end { // exponent: [eE][+-]?digits
		i := fracEnd + 1
		expNeg := false
		if s[i] == '+' || s[i] == '-' {
			expNeg = s[i] == '-'
			i++
		}
		if end-i > 3 {
			return 0, false // keeps x below: |exponent| <= 999
		}
		x := 0
		for ; i < end; i++ {
			x = x*10 + int(s[i]-'0')
		}
		if expNeg {
			x = -x
		}
		e += x
	}
	switch {
	case m == 0:
		f = 0 // 0, 0.000, 0e99: zero whatever the exponent
	case e < -22 || e > 22:
		return 0, false
	case e < 0:
		f = float64(m) / exactPow10[-e]
	default:
		f = float64(m) * exactPow10[e]
	}
	if neg {
		f = -f
	}
	return f, true
}
