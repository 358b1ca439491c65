package phpjson

import "errors"

// storh's JSONC reader (Jsonc::decode_object; docs/format/phpjson.md §5)
// and writers (Jsonc::encode_object / encode_compact_object, docs/format/phpjson.md §6).
//
// Why not tailscale/hujson: storh does not parse JSONC, it rewrites the text
// with two byte-wise state machines and then runs PHP's strict json_decode,
// and storh files must be accepted or rejected exactly as PHP does. hujson
// replaces a comment by whitespace, so `1/**/2` is a syntax error there while
// PHP reads 12; it rejects `[,]`, which PHP reads as []; and its errors are
// not PHP's JsonException texts. So the PHP state machines are reproduced
// here instead.

// ErrNotObject is storh's StorageException for a JSONC document that is not
// a JSON object with only non-integer-like keys at the top level.
var ErrNotObject = errors.New("JSONC document must decode to an object.")

// JSONCError is a PHP JSON error (Err, one of the Err* values) raised by the
// final strict decode of the JSONC pass. PHP lets it escape as a raw
// JsonException; storh's read_jsonc_object turns it into
// "Invalid JSONC storage file: <path>". Error() is PHP's JSON message.
type JSONCError struct{ Err error }

func (e *JSONCError) Error() string { return e.Err.Error() }
func (e *JSONCError) Unwrap() error { return e.Err }

// DecodeJSONCObject is Jsonc::decode_object. It returns the top-level
// object, or ErrNotObject, or a *JSONCError.
//
//  1. t = trim(text); if t is "{...}" and decodes strictly (depth 512), the
//     result is validated with no fallback.
//  2. Otherwise s = trim(StripTrailingCommas(StripComments(text))); s must
//     be "{...}" (else ErrNotObject) and decode strictly (else *JSONCError),
//     then it is validated.
//
// Validation: the value must be an array whose keys are all string keys
// ({} passes; a list, a scalar or a key like "5" fail with ErrNotObject).
func DecodeJSONCObject(text []byte) (*Array, error) {
	if t := phpTrim(text); isBraced(t) {
		if v, err := Decode(t); err == nil {
			return asObject(v)
		}
	}
	s := phpTrim(StripTrailingCommas(StripComments(text)))
	if !isBraced(s) {
		return nil, ErrNotObject
	}
	v, err := Decode(s)
	if err != nil {
		return nil, &JSONCError{Err: err}
	}
	return asObject(v)
}

func isBraced(t []byte) bool {
	return len(t) > 0 && t[0] == '{' && t[len(t)-1] == '}'
}

func asObject(v Value) (*Array, error) {
	a, ok := v.(*Array)
	if !ok {
		return nil, ErrNotObject
	}
	for _, k := range a.keys {
		if k.isInt {
			return nil, ErrNotObject
		}
	}
	return a, nil
}

// phpTrim is PHP trim() with its default set: space, \t, \n, \r, NUL, \v
// (not \f, not NBSP, not a BOM).
func phpTrim(b []byte) []byte {
	isTrim := func(c byte) bool {
		return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0 || c == '\v'
	}
	for len(b) > 0 && isTrim(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isTrim(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// StripComments is storh's Jsonc::strip_comments. Outside double-quoted
// strings (a `\` escapes the next byte), `//` drops everything up to but not
// including the next \n or \r, and `/*...*/` is replaced by its inner bytes
// turned into spaces except \n and \r, the delimiters themselves dropped
// (so `1/**/2` becomes `12`). An unterminated `/*` swallows the rest of the
// input; its inner bytes are still written, except the very last byte.
// The result is a new slice.
func StripComments(text []byte) []byte {
	out := make([]byte, 0, len(text))
	n := len(text)
	var str stringTracker
	for i := 0; i < n; i++ {
		c := text[i]
		if str.feed(c) {
			out = append(out, c)
			continue
		}
		if c == '/' && i+1 < n && text[i+1] == '/' {
			i += 2
			for i < n && text[i] != '\n' && text[i] != '\r' {
				i++
			}
			i-- // the newline (if any) is copied by the next iteration
			continue
		}
		if c == '/' && i+1 < n && text[i+1] == '*' {
			i += 2
			closed := false
			for ; i < n-1; i++ {
				if text[i] == '*' && text[i+1] == '/' {
					closed = true
					break
				}
				if text[i] == '\n' || text[i] == '\r' {
					out = append(out, text[i])
				} else {
					out = append(out, ' ')
				}
			}
			if closed {
				i++ // skip "*/": the loop's i++ passes the '/'
			} else {
				i = n
			}
			continue
		}
		out = append(out, c)
	}
	return out
}

// StripTrailingCommas is storh's Jsonc::strip_trailing_commas: outside
// double-quoted strings, a `,` whose next non-space byte (ctype_space:
// space, \t, \n, \r, \v, \f) is `}` or `]` is dropped. One comma per
// position: `[1,,]` becomes `[1,]`. The result is a new slice.
func StripTrailingCommas(text []byte) []byte {
	out := make([]byte, 0, len(text))
	n := len(text)
	var str stringTracker
	for i := 0; i < n; i++ {
		c := text[i]
		if !str.feed(c) && c == ',' {
			j := i + 1
			for j < n && isCtypeSpace(text[j]) {
				j++
			}
			if j < n && (text[j] == '}' || text[j] == ']') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// stringTracker follows double-quoted string literals byte by byte, as
// both of storh's JSONC passes do: a `\` escapes the next byte, and a
// string ends at the next unescaped `"`.
type stringTracker struct{ inString, escaped bool }

// feed reports whether c belongs to a string literal, its quotes included.
func (s *stringTracker) feed(c byte) bool {
	switch {
	case !s.inString:
		s.inString = c == '"'
		return s.inString
	case s.escaped:
		s.escaped = false
	case c == '\\':
		s.escaped = true
	case c == '"':
		s.inString = false
	}
	return true
}

func isCtypeSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// EncodeJSONCObject is Jsonc::encode_object: "{}\n" for an empty array,
// else EncodePretty(a) + "\n". (A non-empty list is written as a JSON list.)
func EncodeJSONCObject(a *Array) ([]byte, error) { return encodeObjectFile(a, EncodePretty) }

// EncodeCompactObject is Jsonc::encode_compact_object: "{}\n" for an empty
// array, else Encode(a) + "\n" (SegmentedLog manifests and sparse indexes).
func EncodeCompactObject(a *Array) ([]byte, error) { return encodeObjectFile(a, Encode) }

func encodeObjectFile(a *Array, encode func(Value) ([]byte, error)) ([]byte, error) {
	if a.Len() == 0 {
		return []byte("{}\n"), nil
	}
	out, err := encode(a)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
