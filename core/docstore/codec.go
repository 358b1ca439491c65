package docstore

import (
	"storhfs/core/phpjson"
)

// The phpjson entry points this package uses, in one place.

// decodeStrict is PHP json_decode($b, true) (depth 512).
func decodeStrict(b []byte) (phpjson.Value, error) { return phpjson.Decode(b) }

// appendJSON appends storh's compact json_encode of v.
func appendJSON(dst []byte, v phpjson.Value) ([]byte, error) { return phpjson.AppendEncode(dst, v) }

// decodeObject decodes a record file as PHP's Jsonc::decode_object does
// (spec 3.5 steps 2-3): strict JSON first; only after a JSON error, the
// JSONC pass. The result must be an object without integer-like keys.
// Errors carry PHP's texts and are ErrInvalidRecord: "JSONC document must
// decode to an object." or "Invalid JSONC storage file: <path>".
func decodeObject(content []byte, path string) (*phpjson.Array, error) {
	v, err := phpjson.Decode(content)
	if err == nil {
		return asObject(v)
	}
	if !phpjson.IsJSONError(err) {
		return nil, wrapError(ErrInvalidRecord, msgInvalidJSONC+path, err)
	}
	trimmed := trimPHP(content)
	if len(trimmed) > 0 && trimmed[0] == '{' && trimmed[len(trimmed)-1] == '}' {
		if v, err := phpjson.Decode(trimmed); err == nil {
			return asObject(v)
		}
	}
	stripped := trimPHP(stripTrailingCommas(stripComments(content)))
	if len(stripped) == 0 || stripped[0] != '{' || stripped[len(stripped)-1] != '}' {
		return nil, newError(ErrInvalidRecord, msgNotObject)
	}
	v, err = phpjson.Decode(stripped)
	if err != nil {
		return nil, wrapError(ErrInvalidRecord, msgInvalidJSONC+path, err)
	}
	return asObject(v)
}

// asObject accepts a decoded array with no integer keys (the empty array
// included); lists, scalars and {"5":..} objects are not objects.
func asObject(v phpjson.Value) (*phpjson.Array, error) {
	a, ok := v.(*phpjson.Array)
	if !ok {
		return nil, newError(ErrInvalidRecord, msgNotObject)
	}
	for _, k := range a.Keys() {
		if k.IsInt() {
			return nil, newError(ErrInvalidRecord, msgNotObject)
		}
	}
	return a, nil
}

// trimPHP is PHP trim(): strips " \t\n\r\0\x0B" at both ends.
func trimPHP(b []byte) []byte {
	isSpace := func(c byte) bool {
		return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0 || c == 0x0b
	}
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// stripComments removes // comments (up to, not including, \n or \r) and
// replaces /* */ comments with one space per byte except \n and \r, outside
// string literals. An unterminated /* swallows the rest.
func stripComments(src []byte) []byte {
	out := make([]byte, 0, len(src))
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			out = append(out, c)
			if c == '\\' && i+1 < len(src) {
				i++
				out = append(out, src[i])
			} else if c == '"' {
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' && src[i] != '\r' {
				i++
			}
			i-- // keep the line end
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := i + 2
			for j+1 < len(src) && !(src[j] == '*' && src[j+1] == '/') {
				j++
			}
			end := j + 2 // past "*/"
			if j+1 >= len(src) {
				end = len(src)
			}
			for k := i; k < end; k++ {
				if src[k] == '\n' || src[k] == '\r' {
					out = append(out, src[k])
				} else {
					out = append(out, ' ')
				}
			}
			i = end - 1
		default:
			out = append(out, c)
		}
	}
	return out
}

// stripTrailingCommas drops, outside strings, each ',' whose next
// non-whitespace byte is '}' or ']'.
func stripTrailingCommas(src []byte) []byte {
	out := make([]byte, 0, len(src))
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			out = append(out, c)
			if c == '\\' && i+1 < len(src) {
				i++
				out = append(out, src[i])
			} else if c == '"' {
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == ',' {
			j := i + 1
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n' || src[j] == '\r' || src[j] == '\v' || src[j] == '\f') {
				j++
			}
			if j < len(src) && (src[j] == '}' || src[j] == ']') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}
