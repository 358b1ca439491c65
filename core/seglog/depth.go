package seglog

import "github.com/storhfs/storhfs/core/phpjson"

// maxLineNesting is the deepest nesting of arrays and objects PHP's
// json_decode($line, true) (depth 512) reads in a line's envelope.
const maxLineNesting = phpjson.DefaultDepth - 1

// tooDeepForPHP reports whether payload nests arrays and objects more than
// maxLineNesting deep, so that PHP's decode_line fails on it with
// "Maximum stack depth exceeded". PHP decodes every line it streams before
// looking at the state or the query, so such a line fails a stream even
// where our fast path would skip it undecoded. Only a payload of at least
// 2*(maxLineNesting+1) bytes can nest that deep, so short lines cost
// nothing.
func tooDeepForPHP(payload []byte) bool {
	if len(payload) < 2*(maxLineNesting+1) {
		return false
	}
	depth, inString := 0, false
	for i := 0; i < len(payload); i++ {
		c := payload[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > maxLineNesting {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}
