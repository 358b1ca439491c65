package phpjson

import (
	"math"
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
	d := decoder{src: string(b), maxDepth: maxDepth} // stays on the stack
	defer d.release()
	return d.parse()
}

// decoder holds one parse. Strings without escapes are substrings of src,
// so a whole record costs one copy of its bytes for all its strings.
type decoder struct {
	src      string
	maxDepth int
	sc       *scratch // taken from scratchPool when first needed
}

// scratch is the memory a parse needs beyond its own stack: the members
// of open containers and the unescape buffer.
type scratch struct {
	frames []frame
	keys   []Key   // members of all open containers, stacked
	vals   []Value // parallel to keys
	buf    []byte  // unescape scratch
}

// scratchPool recycles scratch (a cache only: reset empties it).
var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// scratch returns d's scratch, taking one from the pool on first use.
func (d *decoder) scratch() *scratch {
	if d.sc == nil {
		d.sc = scratchPool.Get().(*scratch)
	}
	return d.sc
}

// release returns d's scratch, if it took one, to the pool.
func (d *decoder) release() {
	if d.sc != nil {
		if d.sc.reset() {
			scratchPool.Put(d.sc)
		}
		d.sc = nil
	}
}

// reset empties sc, dropping references into parsed input, and reports
// whether it is worth keeping (scratch grown by hostile input is not).
func (sc *scratch) reset() bool {
	const keep = 1024
	clear(sc.vals)
	clear(sc.keys)
	clear(sc.frames)
	sc.frames, sc.keys, sc.vals = sc.frames[:0], sc.keys[:0], sc.vals[:0]
	return cap(sc.keys) <= keep && cap(sc.frames) <= keep && cap(sc.buf) <= 64*keep
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
	stObjKey                     // after ',' in an object: key (then ':')
	stObjNext                    // after a member: ',' or '}'
	stEnd                        // after the top value: only whitespace
)

// skipWS returns the position of the first byte at or after pos that is
// not JSON whitespace.
func skipWS(s string, pos int) int {
	for pos < len(s) {
		switch s[pos] {
		case ' ', '\t', '\n', '\r':
			pos++
		default:
			return pos
		}
	}
	return pos
}

// parse reads d.src. The position lives in a local; every helper takes and
// returns it. Whitespace is skipped by a call only when the next byte can
// be whitespace (compact input never pays for it).
func (d *decoder) parse() (Value, error) {
	var (
		sc  = d.scratch()
		s   = d.src
		pos = 0
		top Value
		st  = stValue
	)
	for {
		if pos < len(s) && s[pos] <= ' ' {
			pos = skipWS(s, pos)
		}
		switch st {
		case stValue, stArrFirst:
			if pos >= len(s) {
				return nil, ErrSyntax
			}
			c := s[pos]
			if st == stArrFirst {
				if c == ']' {
					pos++
					st = sc.afterValue(sc.closeFrame(), &top)
					continue
				}
				if c == '}' {
					return nil, ErrStateMismatch
				}
			}
			var v Value
			switch {
			case c == '"':
				str, next, err := d.scanString(pos)
				if err != nil {
					return nil, err
				}
				pos, v = next, str
			case c == '{' || c == '[':
				if d.maxDepth > 0 && 1+len(sc.frames) >= d.maxDepth {
					return nil, ErrDepth
				}
				pos++
				sc.frames = append(sc.frames, frame{object: c == '{', start: len(sc.keys)})
				if c == '{' {
					st = stObjFirst
				} else {
					st = stArrFirst
				}
				continue
			case c == '-' || (c >= '0' && c <= '9'):
				nv, next, ok := scanNumber(s, pos)
				if !ok {
					return nil, ErrSyntax
				}
				pos, v = next, nv
			case c == 'n' && hasPrefixAt(s, pos, "null"):
				pos += 4
				v = nil
			case c == 't' && hasPrefixAt(s, pos, "true"):
				pos += 4
				v = true
			case c == 'f' && hasPrefixAt(s, pos, "false"):
				pos += 5
				v = false
			default:
				return nil, d.unexpected(pos)
			}
			st = sc.afterValue(v, &top)

		case stObjFirst, stObjKey:
			if pos >= len(s) {
				return nil, ErrSyntax
			}
			c := s[pos]
			if st == stObjFirst {
				if c == '}' {
					pos++
					st = sc.afterValue(sc.closeFrame(), &top)
					continue
				}
				if c == ']' {
					return nil, ErrStateMismatch
				}
			}
			if c != '"' {
				return nil, d.unexpected(pos)
			}
			name, next, err := d.scanString(pos)
			if err != nil {
				return nil, err
			}
			sc.frames[len(sc.frames)-1].key = memberKey(name)
			// The ':' that must follow (what a separate state would check).
			pos = skipWS(s, next)
			if pos >= len(s) || s[pos] != ':' {
				return nil, d.unexpected(pos)
			}
			pos++
			st = stValue

		case stArrNext, stObjNext:
			if pos >= len(s) {
				return nil, ErrSyntax
			}
			c := s[pos]
			closer, other := byte(']'), byte('}')
			if st == stObjNext {
				closer, other = '}', ']'
			}
			switch c {
			case ',':
				pos++
				if st == stObjNext {
					st = stObjKey
				} else {
					st = stValue
				}
			case closer:
				pos++
				st = sc.afterValue(sc.closeFrame(), &top)
			case other:
				return nil, ErrStateMismatch
			default:
				return nil, d.unexpected(pos)
			}

		case stEnd:
			if pos == len(s) {
				return top, nil
			}
			return nil, d.unexpected(pos)
		}
	}
}

// memberKey is StrKey for an object member name, deciding the common case
// (a name that does not start like an integer) without the full check.
func memberKey(name string) Key {
	if name == "" || (name[0] != '-' && (name[0] < '0' || name[0] > '9')) {
		return Key{str: name}
	}
	return StrKey(name)
}

// afterValue files a finished value into the open container (or as the
// result) and returns the next state.
func (sc *scratch) afterValue(v Value, top *Value) parseState {
	if len(sc.frames) == 0 {
		*top = v
		return stEnd
	}
	f := &sc.frames[len(sc.frames)-1]
	if !f.object {
		sc.keys = append(sc.keys, IntKey(int64(len(sc.keys)-f.start)))
		sc.vals = append(sc.vals, v)
		return stArrNext
	}
	sc.addMember(f, f.key, v)
	return stObjNext
}

// addMember sets key k of the open object f: a duplicate key keeps its
// first position and takes the new value (PHP zend_symtable_update).
func (sc *scratch) addMember(f *frame, k Key, v Value) {
	n := len(sc.keys) - f.start
	if f.dups != nil {
		if i, ok := f.dups[k]; ok {
			sc.vals[f.start+i] = v
			return
		}
		f.dups[k] = n
	} else {
		members := sc.keys[f.start:]
		if replaceDup(members, sc.vals[f.start:], k, v) {
			return
		}
		if n+1 > dupLinearLimit {
			f.dups = make(map[Key]int, 2*dupLinearLimit)
			for i, key := range members {
				f.dups[key] = i
			}
			f.dups[k] = n
		}
	}
	sc.keys = append(sc.keys, k)
	sc.vals = append(sc.vals, v)
}

// replaceDup stores v over the member keyed k, if there is one (a linear
// search: members are few).
func replaceDup(keys []Key, vals []Value, k Key, v Value) bool {
	for i := range keys {
		if keys[i] == k {
			vals[i] = v
			return true
		}
	}
	return false
}

// closeFrame pops the innermost container and returns it as an *Array.
func (sc *scratch) closeFrame() *Array {
	f := sc.frames[len(sc.frames)-1]
	sc.frames = sc.frames[:len(sc.frames)-1]
	a := newArrayFrom(sc.keys[f.start:], sc.vals[f.start:], f.dups)
	clear(sc.keys[f.start:]) // pooled scratch must not keep the input alive
	clear(sc.vals[f.start:])
	sc.keys = sc.keys[:f.start]
	sc.vals = sc.vals[:f.start]
	return a
}

// newArrayFrom builds an array from unique keys, copying the slices. index,
// if given, must map every key to its position.
func newArrayFrom(keys []Key, vals []Value, index map[Key]int) *Array {
	a := NewArray(len(keys))
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

// unexpected returns the error PHP reports when the token at pos is not
// allowed here: the scanner's own error for that token if it has one,
// otherwise a syntax error.
func (d *decoder) unexpected(pos int) error {
	s := d.src
	if pos >= len(s) {
		return ErrSyntax // end of input
	}
	c := s[pos]
	switch {
	case c < 0x20:
		return ErrCtrlChar // includes NUL before the end of input
	case c == '"':
		if _, _, err := d.scanString(pos); err != nil {
			return err
		}
		return ErrSyntax
	case c < 0x80:
		return ErrSyntax
	}
	if _, size := decodeRune(s, pos); size == 0 {
		return ErrUTF8
	}
	return ErrSyntax
}
