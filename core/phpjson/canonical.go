package phpjson

import (
	"strconv"
	"unicode/utf8"
)

// IsCanonicalArray reports whether b is a JSON object or list that Decode
// accepts and whose compact encoding (AppendEncode of the decoded array)
// is b itself, byte for byte, without building any value. It is
// conservative: it may answer false for some canonical input (nesting
// deeper than CanonicalMaxDepth, objects of more than CanonicalMaxMembers
// members, keys made of digits), never true for input that is not
// canonical. The accepted forms are the ones the encoder writes:
//   - no whitespace; "{}" refused anywhere (it decodes to the empty
//     array, written "[]");
//   - object keys without escapes that are not made of digits (an
//     optional "-" and digits: Decode may turn them into int keys), no
//     duplicate key;
//   - strings escaped exactly as AppendString escapes (\" \\ \b \f \n \r
//     \t, \u00xx for other controls, \u2028, \u2029), valid UTF-8;
//   - integers as int64 prints them (no "-0", no overflow), floats
//     exactly as FormatFloat prints the value they parse to; true, false,
//     null.
func IsCanonicalArray(b []byte) bool {
	var c CanonicalChecker
	return c.IsCanonicalArray(b)
}

// Bounds of the canonical check: deeper nesting or wider objects are left
// to the decoder (duplicate keys are found by comparing every pair).
const (
	CanonicalMaxDepth   = 64
	CanonicalMaxMembers = 64
)

// CanonicalChecker is IsCanonicalArray with its key buffer kept between
// calls (not safe for concurrent use).
type CanonicalChecker struct {
	src  []byte
	keys [][2]int // key spans of the open objects
}

// IsCanonicalArray is the package function IsCanonicalArray.
func (c *CanonicalChecker) IsCanonicalArray(b []byte) bool {
	if len(b) < 2 || (b[0] != '{' && b[0] != '[') {
		return false
	}
	c.src, c.keys = b, c.keys[:0]
	end, ok := c.value(0, 0)
	c.src = nil
	return ok && end == len(b)
}

// value checks the value starting at i and returns the index after it.
func (c *CanonicalChecker) value(i, depth int) (int, bool) {
	if i >= len(c.src) {
		return 0, false
	}
	switch ch := c.src[i]; {
	case ch == '{':
		return c.object(i, depth+1)
	case ch == '[':
		return c.list(i, depth+1)
	case ch == '"':
		return c.str(i)
	case ch == '-' || (ch >= '0' && ch <= '9'):
		return c.number(i)
	default:
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(c.src)-i >= len(lit) && string(c.src[i:i+len(lit)]) == lit {
				return i + len(lit), true
			}
		}
		return 0, false
	}
}

func (c *CanonicalChecker) object(i, depth int) (int, bool) {
	if depth > CanonicalMaxDepth {
		return 0, false
	}
	base := len(c.keys)
	defer func() { c.keys = c.keys[:base] }()
	i++ // '{'
	if i < len(c.src) && c.src[i] == '}' {
		return 0, false // {} reads as an empty array
	}
	for {
		ks := i
		ke, ok := c.str(i)
		if !ok || !plainKey(c.src[ks+1:ke-1]) || len(c.keys)-base >= CanonicalMaxMembers {
			return 0, false
		}
		for _, k := range c.keys[base:] {
			if string(c.src[k[0]:k[1]]) == string(c.src[ks:ke]) {
				return 0, false
			}
		}
		c.keys = append(c.keys, [2]int{ks, ke})
		if ke >= len(c.src) || c.src[ke] != ':' {
			return 0, false
		}
		if i, ok = c.value(ke+1, depth); !ok || i >= len(c.src) {
			return 0, false
		}
		switch c.src[i] {
		case ',':
			i++
		case '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// plainKey: a key without escapes that is not made of digits (an
// optional "-" and digits).
func plainKey(k []byte) bool {
	digits, other := 0, false
	for j, ch := range k {
		switch {
		case ch == '\\':
			return false
		case ch >= '0' && ch <= '9':
			digits++
		case j == 0 && ch == '-':
		default:
			other = true
		}
	}
	return other || digits == 0
}

func (c *CanonicalChecker) list(i, depth int) (int, bool) {
	if depth > CanonicalMaxDepth {
		return 0, false
	}
	i++ // '['
	if i < len(c.src) && c.src[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = c.value(i, depth); !ok || i >= len(c.src) {
			return 0, false
		}
		switch c.src[i] {
		case ',':
			i++
		case ']':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// str checks a string starting at its opening quote: raw bytes except
// `"`, `\` and controls; valid UTF-8 other than U+2028/U+2029; escapes
// only where storh writes them (\" \\ \b \f \n \r \t, \u00xx for other
// controls in lowercase hex, \u2028, \u2029).
func (c *CanonicalChecker) str(i int) (int, bool) {
	if i >= len(c.src) || c.src[i] != '"' {
		return 0, false
	}
	b := c.src
	i++
	for i < len(b) {
		ch := b[i]
		if plainStringByte[ch] {
			i++
			continue
		}
		switch {
		case ch == '"':
			return i + 1, true
		case ch < 0x20:
			return 0, false
		case ch == '\\':
			if i+1 >= len(b) {
				return 0, false
			}
			switch b[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !canonicalUEscape(b[i+2:i+6]) {
					return 0, false
				}
				i += 6
			default:
				return 0, false
			}
		case ch < 0x80:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
				return 0, false
			}
			i += size
		}
	}
	return 0, false
}

// canonicalUEscape: the 4 hex digits of a \u escape storh writes.
func canonicalUEscape(h []byte) bool {
	switch string(h) {
	case "2028", "2029":
		return true
	}
	if h[0] != '0' || h[1] != '0' || (h[2] != '0' && h[2] != '1') {
		return false
	}
	lo := h[3]
	var v byte
	switch {
	case lo >= '0' && lo <= '9':
		v = lo - '0'
	case lo >= 'a' && lo <= 'f':
		v = lo - 'a' + 10
	default:
		return false
	}
	v += (h[2] - '0') << 4
	switch v {
	case '\b', '\t', '\n', '\f', '\r':
		return false // written as \b \t \n \f \r
	}
	return true
}

// number checks a JSON number: an integer as int64 prints it (no -0),
// or a float exactly as storh prints the float it parses to.
func (c *CanonicalChecker) number(i int) (int, bool) {
	b := c.src
	start := i
	if b[i] == '-' {
		i++
	}
	digits := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	nd := i - digits
	if nd == 0 || (nd > 1 && b[digits] == '0') {
		return 0, false
	}
	isFloat := false
	for i < len(b) {
		ch := b[i]
		if ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-' || (ch >= '0' && ch <= '9') {
			isFloat = true
			i++
			continue
		}
		break
	}
	tok := b[start:i]
	if !isFloat {
		if string(tok) == "-0" {
			return 0, false
		}
		if nd >= 19 {
			if _, err := strconv.ParseInt(string(tok), 10, 64); err != nil {
				return 0, false // PHP reads it as a float
			}
		}
		return i, true
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || FormatFloat(f) != string(tok) {
		return 0, false
	}
	return i, true
}
