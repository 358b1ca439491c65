package fusefs

// The working memory of a commit, estimated before the store parses the
// content. Measured with PutRaw (heap peak over the content):
//   - copies: the store's copy, a JSONC-to-JSON copy, the parsed strings
//     and their growth: up to 4x the content (a JSONC string blob);
//   - values: every array element or object member costs 150-290 bytes
//     parsed (2 MiB of "[0,0,...]" peaks at 204 MiB);
//   - escapes: unescaping costs up to about 12 bytes per escape.
//
// The estimate takes 5x, 320 bytes and 16 bytes, plus the content itself
// when it is read back from a spill file.
const (
	costCopies     = 5
	costPerValue   = 320
	costPerEscape  = 16
	costScanPieces = 256 << 10 // read size when scanning a spill file
)

// jsonShape counts, over JSONC text fed in pieces, what drives the parsed
// size: values (commas and openings outside strings and comments) and
// escapes inside strings. Strings and comments are recognised exactly as
// storh's JSONC passes do (phpjson.StripComments), so no text can hide
// values from the count. On invalid text the counts are still an upper
// bound of what the parser builds before it fails.
type jsonShape struct {
	values, escapes int64
	state           lexState
}

type lexState uint8

const (
	lexCode         lexState = iota
	lexString                // inside "..."
	lexEscape                // after a backslash in a string
	lexSlash                 // after a '/' in code
	lexLineComment           // after //, up to \n or \r
	lexBlockComment          // after /*
	lexBlockStar             // after a '*' in a block comment
)

func (s *jsonShape) scan(p []byte) {
	for _, c := range p {
		switch s.state {
		case lexString:
			switch c {
			case '\\':
				s.state = lexEscape
				s.escapes++
			case '"':
				s.state = lexCode
			}
		case lexEscape:
			s.state = lexString
		case lexSlash:
			switch c {
			case '/':
				s.state = lexLineComment
			case '*':
				s.state = lexBlockComment
			default:
				s.code(c)
			}
		case lexLineComment:
			if c == '\n' || c == '\r' {
				s.state = lexCode
			}
		case lexBlockComment, lexBlockStar:
			switch {
			case c == '*':
				s.state = lexBlockStar
			case c == '/' && s.state == lexBlockStar:
				s.state = lexCode
			default:
				s.state = lexBlockComment
			}
		default:
			s.code(c)
		}
	}
}

func (s *jsonShape) code(c byte) {
	s.state = lexCode
	switch c {
	case '"':
		s.state = lexString
	case '/':
		s.state = lexSlash
	case ',', '[', '{':
		s.values++
	}
}

// parseCost is the estimated working memory of storing size bytes of the
// shape s (not counting a read-back copy).
func (s *jsonShape) parseCost(size int64) int64 {
	return costCopies*size + costPerValue*(s.values+1) + costPerEscape*s.escapes
}
