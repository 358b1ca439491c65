package seglog

import (
	"strconv"
	"unicode/utf8"
	"unsafe"

	"storhfs/core/phpjson"
	"storhfs/core/uuidv7"
)

// Records view fast path. A put line whose data is already in the exact
// form storh writes for what PHP reads from it (spec 2.4, 2.6) renders to
// records.ndjson as `{"id":"<id>","data":` + the raw data bytes + "}\n",
// without decoding. canonicalData decides that conservatively: anything
// it is unsure of goes the decode/encode way.

// Bounds of the canonical check: deeper nesting or wider objects are left
// to the decoder (duplicate keys are found by comparing every pair).
const (
	canonMaxDepth = 64
	canonMaxKeys  = 64
)

// recordPrefix is what a records.ndjson line starts with; the canonical
// put's payload starts with putPrefix instead and has no "\n".
const recordPrefix = `{"id":"`

// recordLineDelta is len(payload) - len(records line) for a canonical put.
const recordLineDelta = len(putPrefix) - len(recordPrefix) - 1

// validIDBytes is uuidv7.Valid of a raw id without copying it.
func validIDBytes(id []byte) bool {
	if len(id) != idLen {
		return false
	}
	return uuidv7.Valid(unsafe.String(&id[0], len(id))) // Valid keeps no reference
}

// recordLineLen is the records.ndjson line length of a replayed line when
// its bytes alone decide it: a fast-path put (data != nil) framed without
// CR, with a valid id and canonical data. payloadLen is the line's
// payload length.
func recordLineLen(c *canonChecker, line, id, data []byte, payloadLen int) (int64, bool) {
	if data == nil || !validIDBytes(id) || !c.check(data) {
		return 0, false
	}
	n := len(line)
	if line[n-1] == '\n' {
		n--
	}
	if n == 0 || line[n-1] != '}' {
		return 0, false
	}
	return int64(payloadLen - recordLineDelta), true
}

// appendCanonicalRecord appends the records.ndjson line of a canonical
// put (id valid, data canonical).
func appendCanonicalRecord(dst, id, data []byte) []byte {
	dst = append(dst, recordPrefix...)
	dst = append(dst, id...)
	dst = append(dst, dataInfix...)
	dst = append(dst, data...)
	return append(dst, '}', '\n')
}

// canonicalData reports whether data is one non-empty JSON object that
// storh's encoder would write back byte for byte after PHP's json_decode
// and the record filter of spec 2.6: no whitespace, no empty object
// (PHP reads {} as an empty array, written []), no key made of digits
// (PHP may turn it into an int key), no duplicate key, strings escaped
// exactly as storh escapes them, numbers as storh prints them.
func canonicalData(data []byte) bool {
	var c canonChecker
	return c.check(data)
}

// canonChecker is canonicalData with its key buffer kept between calls.
type canonChecker struct {
	b    []byte
	keys [][2]int // key spans of the open objects
}

func (c *canonChecker) check(data []byte) bool {
	if len(data) < 2 || data[0] != '{' {
		return false
	}
	c.b, c.keys = data, c.keys[:0]
	end, ok := c.value(0, 0)
	c.b = nil
	return ok && end == len(data)
}

// plainByte marks the string bytes that stand for themselves: ASCII
// other than controls, `"` and `\`.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// value checks the value starting at i and returns the index after it.
func (c *canonChecker) value(i, depth int) (int, bool) {
	if i >= len(c.b) {
		return 0, false
	}
	switch ch := c.b[i]; {
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
			if len(c.b)-i >= len(lit) && string(c.b[i:i+len(lit)]) == lit {
				return i + len(lit), true
			}
		}
		return 0, false
	}
}

func (c *canonChecker) object(i, depth int) (int, bool) {
	if depth > canonMaxDepth {
		return 0, false
	}
	base := len(c.keys)
	defer func() { c.keys = c.keys[:base] }()
	i++ // '{'
	if i < len(c.b) && c.b[i] == '}' {
		return 0, false // {} reads as an empty array
	}
	for {
		ks := i
		ke, ok := c.str(i)
		if !ok || !plainKey(c.b[ks+1:ke-1]) || len(c.keys)-base >= canonMaxKeys {
			return 0, false
		}
		for _, k := range c.keys[base:] {
			if string(c.b[k[0]:k[1]]) == string(c.b[ks:ke]) {
				return 0, false
			}
		}
		c.keys = append(c.keys, [2]int{ks, ke})
		if ke >= len(c.b) || c.b[ke] != ':' {
			return 0, false
		}
		if i, ok = c.value(ke+1, depth); !ok || i >= len(c.b) {
			return 0, false
		}
		switch c.b[i] {
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

func (c *canonChecker) list(i, depth int) (int, bool) {
	if depth > canonMaxDepth {
		return 0, false
	}
	i++ // '['
	if i < len(c.b) && c.b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = c.value(i, depth); !ok || i >= len(c.b) {
			return 0, false
		}
		switch c.b[i] {
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
func (c *canonChecker) str(i int) (int, bool) {
	if i >= len(c.b) || c.b[i] != '"' {
		return 0, false
	}
	b := c.b
	i++
	for i < len(b) {
		ch := b[i]
		if plainByte[ch] {
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
func (c *canonChecker) number(i int) (int, bool) {
	b := c.b
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
	if err != nil || phpjson.FormatFloat(f) != string(tok) {
		return 0, false
	}
	return i, true
}
