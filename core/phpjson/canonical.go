package phpjson

import "unicode/utf8"

// IsCanonicalArray reports whether b is a JSON object or list that Decode
// accepts and whose compact encoding (AppendEncode of the decoded array)
// is b itself, byte for byte. It builds no values. It may answer false for
// some canonical input (it is conservative: floats, \u escapes, "\/",
// keys that start with a digit or '-', objects of more than
// maxCanonicalMembers members, nesting deeper than maxCanonicalDepth);
// it never answers true for input that is not canonical.
//
// Why each accepted form re-encodes to itself (encode.go):
//   - no whitespace anywhere; "[]" and non-empty lists are lists; "{}" is
//     refused (it decodes to the empty array, written "[]");
//   - object keys never start with a digit or '-', so none is an int key
//     (canonicalInt needs one): objects stay objects, in member order; a
//     duplicate key (raw bytes compared: with canonical escapes equal raw
//     keys are equal strings and vice versa) is refused;
//   - strings: plain bytes 0x20-0x7f except '"' and '\', valid UTF-8
//     sequences other than U+2028/U+2029, and the escapes \" \\ \b \f \n
//     \r \t, which are exactly what AppendString writes for their values;
//   - ints: -?(0|[1-9][0-9]*) of at most 18 digits (always an int64), not
//     "-0" (which decodes to 0); true, false and null.
func IsCanonicalArray(b []byte) bool {
	if len(b) < 2 || (b[0] != '{' && b[0] != '[') {
		return false
	}
	c := canonicalChecker{src: b}
	end, ok := c.value(0, 0)
	return ok && end == len(b)
}

const (
	maxCanonicalDepth   = 64
	maxCanonicalMembers = 32
)

type canonicalChecker struct {
	src  []byte
	keys [][2]int // [start, end) of the keys of the open objects, stacked
}

// value checks the value at i (depth containers already open) and returns
// the position after it.
func (c *canonicalChecker) value(i, depth int) (int, bool) {
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
		return c.integer(i)
	case ch == 't':
		return c.literal(i, "true")
	case ch == 'f':
		return c.literal(i, "false")
	case ch == 'n':
		return c.literal(i, "null")
	}
	return 0, false
}

func (c *canonicalChecker) literal(i int, lit string) (int, bool) {
	if len(c.src)-i < len(lit) || string(c.src[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

func (c *canonicalChecker) list(i, depth int) (int, bool) {
	if depth > maxCanonicalDepth {
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

func (c *canonicalChecker) object(i, depth int) (int, bool) {
	if depth > maxCanonicalDepth {
		return 0, false
	}
	i++ // '{'
	base := len(c.keys)
	defer func() { c.keys = c.keys[:base] }()
	for {
		if i >= len(c.src) || c.src[i] != '"' || i+1 >= len(c.src) {
			return 0, false // also refuses "{}"
		}
		if k := c.src[i+1]; k == '-' || (k >= '0' && k <= '9') {
			return 0, false // could be an int key
		}
		end, ok := c.str(i)
		if !ok || len(c.keys)-base >= maxCanonicalMembers || c.duplicate(base, i, end) {
			return 0, false
		}
		c.keys = append(c.keys, [2]int{i, end})
		if end >= len(c.src) || c.src[end] != ':' {
			return 0, false
		}
		if i, ok = c.value(end+1, depth); !ok || i >= len(c.src) {
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

// duplicate reports whether the key src[start:end] equals a key of the
// innermost object (keys[base:]).
func (c *canonicalChecker) duplicate(base, start, end int) bool {
	key := c.src[start:end]
	for _, k := range c.keys[base:] {
		if string(c.src[k[0]:k[1]]) == string(key) {
			return true
		}
	}
	return false
}

// str checks the string token at i and returns the position after it.
func (c *canonicalChecker) str(i int) (int, bool) {
	s := c.src
	for i++; i < len(s); {
		ch := s[i]
		switch {
		case ch == '"':
			return i + 1, true
		case ch == '\\':
			if i+1 >= len(s) {
				return 0, false
			}
			switch s[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			default:
				return 0, false // \/ and \u are not what the encoder writes (or not checked)
			}
		case ch < 0x20:
			return 0, false
		case ch < 0x80:
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if (r == utf8.RuneError && size <= 1) || r == '\u2028' || r == '\u2029' {
				return 0, false
			}
			i += size
		}
	}
	return 0, false
}

// integer checks the number at i: an int in canonical form, no fraction or
// exponent (those are refused: floats are not checked).
func (c *canonicalChecker) integer(i int) (int, bool) {
	s := c.src
	start := i
	if s[i] == '-' {
		i++
	}
	digits := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n := i - digits
	switch {
	case n == 0 || n > 18:
		return 0, false
	case s[digits] == '0' && (n > 1 || digits > start): // leading zero, or "-0"
		return 0, false
	case i < len(s) && (s[i] == '.' || s[i] == 'e' || s[i] == 'E'):
		return 0, false
	}
	return i, true
}
