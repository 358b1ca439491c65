package docindex

import (
	"errors"

	"storhfs/core/phpjson"
)

// The PHP value model operations this package uses, in one place.

// appendJSON appends J(v), storh's compact json_encode.
func appendJSON(dst []byte, v phpjson.Value) ([]byte, error) { return phpjson.AppendEncode(dst, v) }

// encodePretty is Jsonc::encode_object (pretty JSON plus "\n").
func encodePretty(a *phpjson.Array) ([]byte, error) { return phpjson.EncodeJSONCObject(a) }

// g17 is sprintf('%.17G') and f24 sprintf('%024.6F'); both print a
// non-finite value as PHP does ("NaN", "Inf", "-Inf": a decoded 1e400 is
// INF and can reach the key code as a query operand or before a unique
// check).
func g17(f float64) string { return phpjson.G17(f) }

func f24(f float64) string { return phpjson.F24(f) }

// identical is PHP ===.
func identical(a, b phpjson.Value) bool { return phpjson.Identical(a, b) }

// serialize is PHP serialize(v), hashed for the VK of array operands.
func serialize(v phpjson.Value) []byte { return []byte(phpjson.Serialize(v)) }

// decodeJSONCObject is storh's AtomicFilesystem::read_jsonc_object on
// content already read from path: Jsonc::decode_object, with a JSON error
// of the JSONC pass reported as "Invalid JSONC storage file: <path>".
func decodeJSONCObject(content []byte, path string) (*phpjson.Array, error) {
	obj, err := phpjson.DecodeJSONCObject(content)
	if err == nil {
		return obj, nil
	}
	var je *phpjson.JSONCError
	if errors.As(err, &je) {
		return nil, &PHPError{Msg: "Invalid JSONC storage file: " + path, Err: err}
	}
	return nil, &PHPError{Msg: err.Error(), Err: err}
}

// decodeLineObject is PHP decode_index_line: json_decode(trim(line)); only
// a non-empty array that is not a list counts (ok false otherwise).
func decodeLineObject(line []byte) (*phpjson.Array, bool) {
	v, err := phpjson.Decode(phpTrim(line))
	if err != nil {
		return nil, false
	}
	a, ok := v.(*phpjson.Array)
	if !ok || a.Len() == 0 || a.IsList() {
		return nil, false
	}
	return a, true
}

// phpTrim strips PHP trim()'s default byte set from both ends.
func phpTrim(b []byte) []byte {
	isSpace := func(c byte) bool {
		return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0 || c == '\x0b'
	}
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// appendJSONString appends J(s) for a string. Most strings here (record
// ids, keys) need no escaping: they are checked 8 bytes at a time and
// copied; anything else goes through phpjson.AppendString.
func appendJSONString(dst []byte, s string) ([]byte, error) {
	if !plainJSON(s) {
		return phpjson.AppendString(dst, s)
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), nil
}

// plainJSON reports whether every byte of s is in 0x20..0x7f and neither
// '"' nor '\\', i.e. J(s) is s in quotes (0x7f, DEL, is written raw).
// Eight bytes are tested at once with the classic SWAR tests; hasLess is
// exact for "is any byte < n" when every byte is < 0x80 (checked first).
func plainJSON(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasLess := func(x, n uint64) bool { return (x-n*ones)&^x&highs != 0 }
	hasByte := func(x, b uint64) bool { return hasLess(x^(b*ones), 1) }
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&highs != 0 || hasLess(x, 0x20) || hasByte(x, '"') || hasByte(x, '\\') {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
