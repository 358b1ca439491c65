package phpjson

import "unicode/utf8"

// decodeRune returns the rune at s[i:] and its size, or size 0 when the
// bytes there are not valid UTF-8 (PHP's UTF8 classes: no overlongs, no
// surrogates, nothing above U+10FFFF; the same set Go accepts).
func decodeRune(s string, i int) (rune, int) {
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size <= 1 {
		return r, 0
	}
	return r, size
}

// plainStringByte marks bytes that stand for themselves inside a string:
// ASCII from 0x20 except '"' and '\'.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString reads the string token whose opening quote is at s[pos] and
// returns its value and the position after the closing quote, following
// PHP's scanner (STR_P1 rules, in input order): a byte below 0x20 (the end
// of input counts as the NUL terminator) is a control character error,
// invalid UTF-8 a UTF-8 error, an unknown or short escape a syntax error,
// and a \u escape of a lone surrogate a UTF-16 error. A string without
// escapes is a substring of d.src.
func (d *decoder) scanString(pos int) (string, int, error) {
	s := d.src
	start := pos + 1
	i := start
	for {
		for i < len(s) && plainStringByte[s[i]] {
			i++
		}
		if i >= len(s) {
			return "", 0, ErrCtrlChar // unterminated: PHP hits its NUL terminator
		}
		switch c := s[i]; {
		case c == '"':
			return s[start:i], i + 1, nil
		case c == '\\':
			return d.scanEscapedString(start, i)
		case c < 0x20:
			return "", 0, ErrCtrlChar
		default: // c >= 0x80: plainStringByte covers the rest of ASCII
			_, size := decodeRune(s, i)
			if size == 0 {
				return "", 0, ErrUTF8
			}
			i += size
		}
	}
}

// PlainString reports whether every byte of s stands for itself inside a
// JSON string (plainStringByte): then J(s) is s in quotes and the string
// token "s" decodes to s.
func PlainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainStringByte[s[i]] {
			return false
		}
	}
	return true
}

// scanEscapedString continues scanString from the first backslash at i,
// unescaping into the scratch buffer.
func (d *decoder) scanEscapedString(start, i int) (string, int, error) {
	s := d.src
	sc := d.scratch()
	buf := append(sc.buf[:0], s[start:i]...)
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			sc.buf = buf
			return string(buf), i + 1, nil
		case c == '\\':
			if i+1 >= len(s) {
				return "", 0, ErrSyntax
			}
			switch s[i+1] {
			case '"', '\\', '/':
				buf = append(buf, s[i+1])
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, n, err := unicodeEscape(s, i)
				if err != nil {
					return "", 0, err
				}
				buf = utf8.AppendRune(buf, r)
				i += n
				continue
			default:
				return "", 0, ErrSyntax
			}
			i += 2
		case c < 0x20:
			return "", 0, ErrCtrlChar
		case c < 0x80:
			buf = append(buf, c)
			i++
		default:
			_, size := decodeRune(s, i)
			if size == 0 {
				return "", 0, ErrUTF8
			}
			buf = append(buf, s[i:i+size]...)
			i += size
		}
	}
	return "", 0, ErrCtrlChar
}

// unicodeEscape decodes the \uXXXX escape at s[i:] (and its low surrogate
// partner), returning the rune and the bytes consumed.
func unicodeEscape(s string, i int) (rune, int, error) {
	hi, ok := hex4(s, i+2)
	if !ok {
		return 0, 0, ErrSyntax // PHP: a lone "\" matches ESCPREF
	}
	switch {
	case hi >= 0xD800 && hi <= 0xDBFF:
		if i+7 < len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
			if lo, ok := hex4(s, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return 0x10000 + (hi-0xD800)<<10 + (lo - 0xDC00), 12, nil
			}
		}
		return 0, 0, ErrUTF16
	case hi >= 0xDC00 && hi <= 0xDFFF:
		return 0, 0, ErrUTF16
	}
	return hi, 6, nil
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
