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
	isFloat := false
	if p+1 < len(s) && s[p] == '.' && s[p+1] >= '0' && s[p+1] <= '9' {
		p += 2
		for p < len(s) && s[p] >= '0' && s[p] <= '9' {
			p++
		}
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
