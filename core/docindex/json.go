package docindex

import (
	"errors"

	"github.com/storhfs/storhfs/core/phpjson"
)

// The PHP value model operations this package uses, in one place.

// appendJSON appends J(v), storh's compact json_encode.
func appendJSON(dst []byte, v phpjson.Value) ([]byte, error) { return phpjson.AppendEncode(dst, v) }

// encodePretty is Jsonc::encode_object (pretty JSON plus "\n").
func encodePretty(a *phpjson.Array) ([]byte, error) { return phpjson.EncodeJSONCObject(a) }

// g17 is sprintf('%.17G') and f24 sprintf('%024.6F'); both print a
// non-finite value as PHP does ("NaN", "INF", "-NF": a decoded 1e400 is
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

// appendJSONString appends J(s) for a string.
func appendJSONString(dst []byte, s string) ([]byte, error) { return phpjson.AppendString(dst, s) }

// plainJSON reports whether J(s) is s in quotes: every byte is in
// 0x20..0x7f and neither '"' nor '\\'.
func plainJSON(s string) bool { return phpjson.PlainString(s) }
