package main

import (
	"io"
	"unicode/utf8"

	"github.com/storhfs/storhfs/core/phpjson"
)

// encodeCLIJSON returns what storh's bin/storh prints for a result:
// json_encode(v, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) plus "\n"
// (docs/cli.md#output). That differs from phpjson.EncodePretty (storh's storage
// flags) in two flags, which escapeCLI undoes on its output:
//   - no JSON_UNESCAPED_UNICODE: non-ASCII is \uXXXX, lowercase hex, with
//     UTF-16 surrogate pairs beyond the BMP;
//   - no JSON_PRESERVE_ZERO_FRACTION: 1.0 prints as 1.
//
// Empty arrays print as [] and lists as [...], as in PHP (results are PHP
// arrays, never objects, so {} does not occur).
func encodeCLIJSON(v phpjson.Value) ([]byte, error) {
	pretty, err := phpjson.EncodePretty(v)
	if err != nil {
		return nil, err
	}
	return append(escapeCLI(pretty), '\n'), nil
}

// printCLIJSON writes encodeCLIJSON(v) to w.
func printCLIJSON(w io.Writer, v phpjson.Value) error {
	out, err := encodeCLIJSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// escapeCLI rewrites valid JSON text written with UNESCAPED_UNICODE and
// PRESERVE_ZERO_FRACTION into the text PHP writes without those flags.
// Non-ASCII bytes occur only inside strings (phpjson has validated the
// UTF-8); outside strings, a number ending in the ".0" that
// PRESERVE_ZERO_FRACTION appends (phpjson adds it only to digit-only
// mantissas, never to "1.5" or "1.0e+25") loses it.
func escapeCLI(in []byte) []byte {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(in)+len(in)/8)
	inString, escaped := false, false
	for i := 0; i < len(in); {
		c := in[i]
		switch {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(in[i:])
			for _, unit := range utf16Units(r) {
				out = append(out, '\\', 'u', hex[unit>>12], hex[unit>>8&0xF], hex[unit>>4&0xF], hex[unit&0xF])
			}
			i += size
			continue
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '-' || (c >= '0' && c <= '9'):
			end := numberEnd(in, i)
			out = append(out, trimZeroFraction(in[i:end])...)
			i = end
			continue
		}
		out = append(out, c)
		i++
	}
	return out
}

// utf16Units returns r as one or two UTF-16 code units.
func utf16Units(r rune) []uint16 {
	if r < 0x10000 {
		return []uint16{uint16(r)}
	}
	r -= 0x10000
	return []uint16{uint16(0xD800 + r>>10), uint16(0xDC00 + r&0x3FF)}
}

// numberEnd returns the index just past the JSON number starting at i.
func numberEnd(in []byte, i int) int {
	for i < len(in) {
		switch c := in[i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			i++
		default:
			return i
		}
	}
	return i
}

// trimZeroFraction turns "-?digits.0" into "-?digits"; other numbers are
// returned unchanged.
func trimZeroFraction(num []byte) []byte {
	n := len(num)
	if n < 3 || num[n-2] != '.' || num[n-1] != '0' {
		return num
	}
	for j, c := range num[:n-2] {
		if !(c >= '0' && c <= '9') && !(j == 0 && c == '-') {
			return num
		}
	}
	return num[:n-2]
}
