package phpjson

import (
	"math"
	"strconv"
	"sync"
)

// DefaultDepth is PHP's default json_decode / json_encode depth.
const DefaultDepth = 512

// Decode is PHP json_decode($b, true) with the default depth 512.
func Decode(b []byte) (Value, error) { return DecodeDepth(b, DefaultDepth) }

// DecodeDepth is PHP json_decode($b, true, maxDepth); maxDepth <= 0 means
// no limit.
//
// Depth counts like PHP's parser, whose counter starts at 1: at most
// maxDepth-1 arrays/objects may be open at once (depth 512 reads 511 levels).
// Errors are the exported Err* values; the first error in input order wins,
// as in PHP's scanner-driven parser. The parser is iterative, so hostile
// nesting cannot exhaust the goroutine stack.
func DecodeDepth(b []byte, maxDepth int) (Value, error) {
	if len(b) == 0 {
		return nil, ErrSyntax
	}
	return decodeString(string(b), maxDepth)
}

// decodeString is DecodeDepth for input that is already a string (no copy).
func decodeString(s string, maxDepth int) (Value, error) {
	if len(s) == 0 {
		return nil, ErrSyntax
	}
	d := decoderPool.Get().(*decoder)
	d.src, d.pos, d.maxDepth = s, 0, maxDepth
	v, err := d.parse()
	d.release()
	decoderPool.Put(d)
	return v, err
}

// decoderPool recycles parse scratch (a cache only: every decode starts
// from an empty decoder state).
var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

// release empties d for reuse, dropping references into the parsed input.
// Scratch grown by hostile input is not kept.
func (d *decoder) release() {
	const keep = 1024
	d.src = ""
	clear(d.vals)
	clear(d.keys)
	clear(d.frames)
	d.frames, d.keys, d.vals = d.frames[:0], d.keys[:0], d.vals[:0]
	if cap(d.keys) > keep || cap(d.frames) > keep || cap(d.buf) > 64*keep {
		*d = decoder{}
	}
}

// decoder holds one parse. Strings without escapes are substrings of src,
// so a whole record costs one copy of its bytes for all its strings.
type decoder struct {
	src      string
	pos      int
	maxDepth int
	frames   []frame
	keys     []Key   // members of all open containers, stacked
	vals     []Value // parallel to keys
	buf      []byte  // unescape scratch
}

// frame is one open array or object; its members are keys[start:].
type frame struct {
	object bool
	start  int
	key    Key         // object: the key whose value is being read
	dups   map[Key]int // object: key -> position, built once it is large
}

// dupLinearLimit is the member count up to which duplicate keys are found
// by a linear scan; larger objects use a map.
const dupLinearLimit = 16

type parseState uint8

const (
	stValue    parseState = iota // a value is required
	stArrFirst                   // after '[': value or ']'
	stArrNext                    // after an element: ',' or ']'
	stObjFirst                   // after '{': key or '}'
	stObjKey                     // after ',' in an object: key
	stObjColon                   // after a key: ':'
	stObjNext                    // after a member: ',' or '}'
	stEnd                        // after the top value: only whitespace
)

func (d *decoder) skipWS() {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) parse() (Value, error) {
	var (
		top Value
		st  = stValue
	)
	for {
		d.skipWS()
		switch st {
		case stValue, stArrFirst:
			if d.pos >= len(d.src) {
				return nil, ErrSyntax
			}
			c := d.src[d.pos]
			if st == stArrFirst {
				if c == ']' {
					d.pos++
					v := d.closeFrame()
					st = d.afterValue(v, &top)
					continue
				}
				if c == '}' {
					return nil, ErrStateMismatch
				}
			}
			var v Value
			switch {
			case c == '{' || c == '[':
				if d.maxDepth > 0 && 1+len(d.frames) >= d.maxDepth {
					return nil, ErrDepth
				}
				d.pos++
				d.frames = append(d.frames, frame{object: c == '{', start: len(d.keys)})
				if c == '{' {
					st = stObjFirst
				} else {
					st = stArrFirst
				}
				continue
			case c == '"':
				s, err := d.scanString()
				if err != nil {
					return nil, err
				}
				v = s
			case c == '-' || (c >= '0' && c <= '9'):
				nv, ok := d.scanNumber()
				if !ok {
					return nil, ErrSyntax
				}
				v = nv
			case c == 'n' && hasPrefixAt(d.src, d.pos, "null"):
				d.pos += 4
				v = nil
			case c == 't' && hasPrefixAt(d.src, d.pos, "true"):
				d.pos += 4
				v = true
			case c == 'f' && hasPrefixAt(d.src, d.pos, "false"):
				d.pos += 5
				v = false
			default:
				return nil, d.unexpected()
			}
			st = d.afterValue(v, &top)

		case stObjFirst, stObjKey:
			if d.pos >= len(d.src) {
				return nil, ErrSyntax
			}
			c := d.src[d.pos]
			if st == stObjFirst {
				if c == '}' {
					d.pos++
					v := d.closeFrame()
					st = d.afterValue(v, &top)
					continue
				}
				if c == ']' {
					return nil, ErrStateMismatch
				}
			}
			if c != '"' {
				return nil, d.unexpected()
			}
			s, err := d.scanString()
			if err != nil {
				return nil, err
			}
			d.frames[len(d.frames)-1].key = StrKey(s)
			st = stObjColon

		case stObjColon:
			if d.pos < len(d.src) && d.src[d.pos] == ':' {
				d.pos++
				st = stValue
				continue
			}
			return nil, d.unexpected()

		case stArrNext, stObjNext:
			if d.pos >= len(d.src) {
				return nil, ErrSyntax
			}
			c := d.src[d.pos]
			closer, other := byte(']'), byte('}')
			if st == stObjNext {
				closer, other = '}', ']'
			}
			switch c {
			case ',':
				d.pos++
				if st == stObjNext {
					st = stObjKey
				} else {
					st = stValue
				}
			case closer:
				d.pos++
				v := d.closeFrame()
				st = d.afterValue(v, &top)
			case other:
				return nil, ErrStateMismatch
			default:
				return nil, d.unexpected()
			}

		case stEnd:
			if d.pos == len(d.src) {
				return top, nil
			}
			return nil, d.unexpected()
		}
	}
}

// afterValue files a finished value into the open container (or as the
// result) and returns the next state.
func (d *decoder) afterValue(v Value, top *Value) parseState {
	if len(d.frames) == 0 {
		*top = v
		return stEnd
	}
	f := &d.frames[len(d.frames)-1]
	if !f.object {
		d.keys = append(d.keys, IntKey(int64(len(d.keys)-f.start)))
		d.vals = append(d.vals, v)
		return stArrNext
	}
	d.addMember(f, f.key, v)
	return stObjNext
}

// addMember sets key k of the open object f: a duplicate key keeps its
// first position and takes the new value (PHP zend_symtable_update).
func (d *decoder) addMember(f *frame, k Key, v Value) {
	n := len(d.keys) - f.start
	if f.dups != nil {
		if i, ok := f.dups[k]; ok {
			d.vals[f.start+i] = v
			return
		}
		f.dups[k] = n
	} else {
		members := d.keys[f.start:]
		for i := range members {
			if members[i] == k {
				d.vals[f.start+i] = v
				return
			}
		}
		if n+1 > dupLinearLimit {
			f.dups = make(map[Key]int, 2*dupLinearLimit)
			for i, key := range members {
				f.dups[key] = i
			}
			f.dups[k] = n
		}
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
}

// closeFrame pops the innermost container and returns it as an *Array.
func (d *decoder) closeFrame() *Array {
	f := d.frames[len(d.frames)-1]
	d.frames = d.frames[:len(d.frames)-1]
	a := newArrayFrom(d.keys[f.start:], d.vals[f.start:], f.dups)
	clear(d.vals[f.start:])
	d.keys = d.keys[:f.start]
	d.vals = d.vals[:f.start]
	return a
}

// newArrayFrom builds an array from unique keys, copying the slices. index,
// if given, must map every key to its position.
func newArrayFrom(keys []Key, vals []Value, index map[Key]int) *Array {
	a := allocArray(len(keys))
	if len(keys) == 0 {
		return a
	}
	a.keys = append(a.keys, keys...)
	a.vals = append(a.vals, vals...)
	for _, k := range keys {
		if k.isInt && k.num >= a.nextInt && k.num < math.MaxInt64 {
			a.nextInt = k.num + 1
		}
	}
	if index != nil && len(keys) > indexThreshold {
		a.index = index
	}
	return a
}

func hasPrefixAt(s string, pos int, lit string) bool {
	return len(s)-pos >= len(lit) && s[pos:pos+len(lit)] == lit
}

// scanNumber reads PHP's INT | FLOAT | EXP token at d.pos (longest match).
// ok is false when there is no number ("-" alone).
func (d *decoder) scanNumber() (Value, bool) {
	s := d.src
	start := d.pos
	p := start
	neg := s[p] == '-'
	if neg {
		p++
	}
	if p >= len(s) || s[p] < '0' || s[p] > '9' {
		return nil, false
	}
	if s[p] == '0' {
		p++
	} else {
		for p < len(s) && s[p] >= '0' && s[p] <= '9' {
			p++
		}
	}
	intEnd := p
	isFloat := false
	if p+1 < len(s) && s[p] == '.' && s[p+1] >= '0' && s[p+1] <= '9' {
		p += 2
		for p < len(s) && s[p] >= '0' && s[p] <= '9' {
			p++
		}
		isFloat = true
	}
	if p < len(s) && (s[p] == 'e' || s[p] == 'E') {
		q := p + 1
		if q < len(s) && (s[q] == '+' || s[q] == '-') {
			q++
		}
		if q < len(s) && s[q] >= '0' && s[q] <= '9' {
			for q < len(s) && s[q] >= '0' && s[q] <= '9' {
				q++
			}
			p = q
			isFloat = true
		}
	}
	d.pos = p
	if !isFloat {
		digits := s[start:intEnd]
		if neg {
			digits = digits[1:]
		}
		// PHP: fewer than 19 digits, or 19 digits below "9223372036854775808"
		// (equal allowed when negative), is a long; else a double.
		if len(digits) < 19 || (len(digits) == 19 && (digits < "9223372036854775808" || (neg && digits == "9223372036854775808"))) {
			var u uint64
			for i := 0; i < len(digits); i++ {
				u = u*10 + uint64(digits[i]-'0')
			}
			if neg {
				return -int64(u), true // -9223372036854775808 wraps correctly
			}
			return int64(u), true
		}
	}
	f, err := strconv.ParseFloat(s[start:p], 64)
	if err != nil {
		// Only range errors are possible for this syntax: PHP's zend_strtod
		// gives the same ±Inf (or 0 on underflow).
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return nil, false
		}
	}
	return f, true
}

// unexpected returns the error PHP reports when the token at d.pos is not
// allowed here: the scanner's own error for that token if it has one,
// otherwise a syntax error.
func (d *decoder) unexpected() error {
	s := d.src
	if d.pos >= len(s) {
		return ErrSyntax // end of input
	}
	c := s[d.pos]
	switch {
	case c < 0x20:
		return ErrCtrlChar // includes NUL before the end of input
	case c == '"':
		if _, err := d.scanString(); err != nil {
			return err
		}
		return ErrSyntax
	case c < 0x80:
		return ErrSyntax
	}
	if _, size := decodeRune(s, d.pos); size == 0 {
		return ErrUTF8
	}
	return ErrSyntax
}
