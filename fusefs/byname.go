package fusefs

import (
	"strings"
	"unicode/utf8"

	"github.com/storhfs/storhfs/core/phpjson"
)

// Names of the index folders COLL/.by/FIELD/VALUE/ (README.md, "Index
// folders and the whole-collection file"). Every value has exactly one name, and a name that is not the
// name of its own decoding is no name at all (ENOENT):
//
//   - a non-empty string is itself, except that '%', '/', NUL, control
//     bytes (below 0x20 and 0x7f), bytes that are not UTF-8, and a
//     leading '.' or '=' are written %XX (two uppercase hex digits):
//     "a/b" -> "a%2Fb", ".x" -> "%2Ex", "50%" -> "50%25";
//   - every other value is '=' and its JSON text as storh writes it
//     (docs/format/phpjson.md §2): "=42", "=-1", "=1.0", "=1.5",
//     "=-0.0", "=1.0e+25", "=true", "=false", "=null", and the empty
//     string "=\"\"".
//
// So "1" (a string), "=1" (an int) and "=1.0" (a float) are three
// folders, as they are three values to PHP's ===. Field names are strings
// and are named like string values. A value whose name would exceed
// NAME_MAX (255 bytes) is not listed.

// valueName returns the folder name of the indexed value v (null, bool,
// int, float or string); false when it has none.
func valueName(v phpjson.Value) (string, bool) {
	if s, ok := v.(string); ok && s != "" {
		return stringName(s)
	}
	switch v.(type) {
	case nil, bool, int64, float64, string:
	default:
		return "", false
	}
	text, err := phpjson.Encode(v)
	if err != nil {
		return "", false
	}
	name := "=" + string(text)
	return name, len(name) <= maxNameLen
}

// stringName returns the name of the non-empty string s.
func stringName(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		c := s[i]
		if needsEscape(c, i == 0) || r == utf8.RuneError && size <= 1 {
			const hex = "0123456789ABCDEF"
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			i++
			continue
		}
		b.WriteString(s[i : i+size])
		i += size
	}
	name := b.String()
	return name, name != "" && len(name) <= maxNameLen
}

func needsEscape(c byte, first bool) bool {
	return c == '%' || c == '/' || c < 0x20 || c == 0x7f || first && (c == '.' || c == '=')
}

// valueOfName decodes a folder name; false for a name that is not the
// name of any value.
func valueOfName(name string) (phpjson.Value, bool) {
	var v phpjson.Value
	if text, typed := strings.CutPrefix(name, "="); typed {
		var err error
		if v, err = phpjson.Decode([]byte(text)); err != nil {
			return nil, false
		}
		if s, ok := v.(string); ok && s != "" {
			return nil, false // a string has its own spelling
		}
	} else {
		s, ok := stringOfName(name)
		if !ok {
			return nil, false
		}
		v = s
	}
	if again, ok := valueName(v); !ok || again != name {
		return nil, false
	}
	return v, true
}

// stringOfName decodes the %XX escapes of a string's name (not checked
// for being canonical: valueOfName and fieldOfName re-encode).
func stringOfName(name string) (string, bool) {
	if !strings.Contains(name, "%") {
		return name, name != ""
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] != '%' {
			b.WriteByte(name[i])
			continue
		}
		if i+2 >= len(name) {
			return "", false
		}
		hi, ok1 := unhex(name[i+1])
		lo, ok2 := unhex(name[i+2])
		if !ok1 || !ok2 {
			return "", false
		}
		b.WriteByte(hi<<4 | lo)
		i += 2
	}
	return b.String(), true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// fieldName is the folder name of an indexed field.
func fieldName(field string) (string, bool) { return stringName(field) }

// fieldOfName decodes a field folder name; false when it names no field.
func fieldOfName(name string) (string, bool) {
	f, ok := stringOfName(name)
	if !ok {
		return "", false
	}
	if again, ok := stringName(f); !ok || again != name {
		return "", false
	}
	return f, true
}
