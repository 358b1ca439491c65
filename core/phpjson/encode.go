package phpjson

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Encode is storh's json_encode: JSON_UNESCAPED_SLASHES |
// JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION | JSON_THROW_ON_ERROR,
// depth 512. No whitespace; arrays whose keys are 0..n-1 are lists.
func Encode(v Value) ([]byte, error) {
	return AppendEncode(make([]byte, 0, 256), v)
}

// AppendEncode appends Encode(v) to dst. On error dst is returned unchanged.
//
// Error precedence follows PHP: invalid UTF-8 (in a key or string) and an
// over-deep array stop encoding at once; NaN/Inf only records an error and
// encoding goes on, so a later hard error replaces it.
func AppendEncode(dst []byte, v Value) ([]byte, error) {
	return AppendEncodeDepth(dst, v, DefaultDepth)
}

// AppendEncodeDepth appends the encoding of v to dst with json_encode's
// depth argument: at most maxDepth nested arrays; maxDepth <= 0 means no
// limit (for test harnesses that print values deeper than storh ever
// writes). On error dst is returned unchanged.
func AppendEncodeDepth(dst []byte, v Value, maxDepth int) ([]byte, error) {
	if maxDepth <= 0 {
		maxDepth = math.MaxInt
	}
	e := encoder{maxDepth: maxDepth}
	return e.encode(dst, v)
}

// encoder is one json_encode call; pretty selects JSON_PRETTY_PRINT.
type encoder struct {
	maxDepth int
	pretty   bool
	infNaN   bool
}

// encode appends the encoding of v to dst, with the error precedence of
// AppendEncode. On error dst is returned unchanged.
func (e *encoder) encode(dst []byte, v Value) ([]byte, error) {
	out, err := e.value(dst, v, 0)
	if err == nil && e.infNaN {
		err = ErrInfNaN
	}
	if err != nil {
		return dst, err
	}
	return out, nil
}

// value appends v, which sits inside depth open arrays.
func (e *encoder) value(dst []byte, v Value, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			e.infNaN = true
		}
		return appendJSONFloat(dst, x), nil
	case string:
		return AppendString(dst, x)
	case *Array:
		return e.array(dst, x, depth+1)
	}
	return dst, ErrUnsupportedType
}

// array appends a, which is the depth-th open array.
func (e *encoder) array(dst []byte, a *Array, depth int) ([]byte, error) {
	if depth > e.maxDepth {
		// PHP encodes the children first and checks the depth when the array
		// closes; nothing is written after an error, so only which error
		// comes first matters.
		return dst, overDepthError(a)
	}
	if a == nil || len(a.keys) == 0 {
		return append(dst, '[', ']'), nil
	}
	list := a.IsList()
	if list {
		dst = append(dst, '[')
	} else {
		dst = append(dst, '{')
	}
	var err error
	for i, k := range a.keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		if e.pretty {
			dst = appendNewlineIndent(dst, depth)
		}
		if !list {
			if k.isInt {
				dst = append(dst, '"')
				dst = strconv.AppendInt(dst, k.num, 10)
				dst = append(dst, '"')
			} else if dst, err = AppendString(dst, k.str); err != nil {
				return dst, err
			}
			dst = append(dst, ':')
			if e.pretty {
				dst = append(dst, ' ')
			}
		}
		if dst, err = e.value(dst, a.vals[i], depth); err != nil {
			return dst, err
		}
	}
	if e.pretty {
		dst = appendNewlineIndent(dst, depth-1)
	}
	if list {
		return append(dst, ']'), nil
	}
	return append(dst, '}'), nil
}

func appendNewlineIndent(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for i := 0; i < depth; i++ {
		dst = append(dst, "    "...)
	}
	return dst
}

// overDepthError returns the error PHP reports for an array opened beyond
// the depth limit: walking its members in order, an invalid UTF-8 key or
// string comes first if it precedes the first array to close (an empty
// array or one whose members are all fine), which raises the depth error.
// Iterative, so hostile nesting cannot exhaust the stack.
func overDepthError(a *Array) error {
	type pos struct {
		a    *Array
		i    int
		list bool
	}
	stack := []pos{{a: a, list: a.IsList()}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.a == nil || top.i >= len(top.a.keys) {
			return ErrDepth
		}
		k, v := top.a.keys[top.i], top.a.vals[top.i]
		top.i++
		if !top.list && !k.isInt && !utf8.ValidString(k.str) {
			return ErrUTF8
		}
		switch x := v.(type) {
		case string:
			if !utf8.ValidString(x) {
				return ErrUTF8
			}
		case *Array:
			stack = append(stack, pos{a: x, list: x.IsList()})
		case nil, bool, int64, float64:
		default:
			return ErrUnsupportedType
		}
	}
	return ErrDepth
}

// AppendString appends s as a JSON string the way storh writes it: `"` and
// `\` escaped, \b \f \n \r \t, other bytes below 0x20 as \u00xx (lowercase
// hex), U+2028/U+2029 as \u2028/\u2029, everything else raw (including "/",
// DEL and non-ASCII). Invalid UTF-8 fails with ErrUTF8 and dst unchanged.
func AppendString(dst []byte, s string) ([]byte, error) {
	const hex = "0123456789abcdef"
	orig := len(dst)
	dst = append(dst, '"')
	run := 0 // start of the pending raw run
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x80 && c != '"' && c != '\\' {
			i++
			continue
		}
		if c >= 0x80 {
			r, size := decodeRune(s, i)
			if size == 0 {
				return dst[:orig], ErrUTF8
			}
			if r != '\u2028' && r != '\u2029' {
				i += size
				continue
			}
			dst = append(dst, s[run:i]...)
			if r == '\u2028' {
				dst = append(dst, `\u2028`...)
			} else {
				dst = append(dst, `\u2029`...)
			}
			i += size
			run = i
			continue
		}
		dst = append(dst, s[run:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		i++
		run = i
	}
	dst = append(dst, s[run:]...)
	return append(dst, '"'), nil
}
