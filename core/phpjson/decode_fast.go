package phpjson

// The fast path of DecodeDepth: a recursive parser that accepts exactly
// what parse accepts and builds the same values, but gives up (ok=false)
// instead of reporting an error, so that parse, run afresh on the same
// input, decides the error. It keeps the members of each open container in
// a buffer on its own stack frame (no write barriers, nothing to clear)
// until fastInline members; beyond that they go to the decoder's scratch as
// in parse. Nesting is bounded by fastMaxNesting so the recursion stays
// small; deeper documents are left to the iterative parse. Invalid and
// deeper documents thus cost up to two parses; valid records cost one.

const (
	fastInline     = 16 // members kept on the stack per container
	fastMaxNesting = 32 // containers open at once before giving up
)

// parseFast parses all of d.src. ok=false means "use parse", not "invalid".
func (d *decoder) parseFast() (v Value, ok bool) {
	s := d.src
	pos := skipWS(s, 0)
	v, pos, ok = d.fastValue(pos, 0)
	if !ok || skipWS(s, pos) != len(s) {
		return nil, false
	}
	return v, true
}

// fastValue reads the value at s[pos] with depth containers open around it.
func (d *decoder) fastValue(pos, depth int) (Value, int, bool) {
	s := d.src
	if pos >= len(s) {
		return nil, 0, false
	}
	switch c := s[pos]; {
	case c == '"':
		str, next, err := d.scanString(pos)
		if err != nil {
			return nil, 0, false
		}
		return str, next, true
	case c == '{' || c == '[':
		// parse fails with ErrDepth when 1+open >= maxDepth.
		if (d.maxDepth > 0 && 1+depth >= d.maxDepth) || depth >= fastMaxNesting {
			return nil, 0, false
		}
		a, next, ok := d.fastContainer(pos, depth+1, c == '{')
		if !ok {
			return nil, 0, false
		}
		return a, next, true
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(s, pos)
	case c == 'n' && hasPrefixAt(s, pos, "null"):
		return nil, pos + 4, true
	case c == 't' && hasPrefixAt(s, pos, "true"):
		return true, pos + 4, true
	case c == 'f' && hasPrefixAt(s, pos, "false"):
		return false, pos + 5, true
	}
	return nil, 0, false
}

// fastContainer reads the object or list whose opening byte is at s[pos];
// depth counts it. Members are kept as parse keeps them: list keys 0..n-1,
// an object's duplicate key keeps its first position and takes the last
// value (addMember once the members have left the stack).
func (d *decoder) fastContainer(pos, depth int, object bool) (*Array, int, bool) {
	var (
		keys [fastInline]Key
		vals [fastInline]Value
		n    int // members in keys/vals while spill.start < 0
		// spill holds the members in d.sc.keys/vals from spill.start on,
		// once there are more than fastInline.
		spill = frame{object: object, start: -1}
		s     = d.src
	)
	closer := byte(']')
	if object {
		closer = '}'
	}
	pos = skipWS(s, pos+1)
	if pos < len(s) && s[pos] == closer {
		return allocArray(0), pos + 1, true
	}
	for {
		var k Key
		if object {
			if pos >= len(s) || s[pos] != '"' {
				return nil, 0, false
			}
			name, next, err := d.scanString(pos)
			if err != nil {
				return nil, 0, false
			}
			k = memberKey(name)
			pos = skipWS(s, next)
			if pos >= len(s) || s[pos] != ':' {
				return nil, 0, false
			}
			pos = skipWS(s, pos+1)
		}
		v, next, ok := d.fastValue(pos, depth)
		if !ok {
			return nil, 0, false
		}
		switch {
		case spill.start >= 0:
			d.sc.spillMember(&spill, k, v)
		case object && replaceDup(keys[:n], vals[:n], k, v):
		case n < fastInline:
			if !object {
				k = IntKey(int64(n))
			}
			keys[n], vals[n] = k, v
			n++
		default:
			sc := d.scratch()
			spill.start = len(sc.keys)
			sc.keys = append(sc.keys, keys[:n]...)
			sc.vals = append(sc.vals, vals[:n]...)
			sc.spillMember(&spill, k, v)
		}
		pos = skipWS(s, next)
		if pos >= len(s) {
			return nil, 0, false
		}
		if s[pos] == ',' {
			pos = skipWS(s, pos+1)
			continue
		}
		if s[pos] != closer {
			return nil, 0, false
		}
		if spill.start < 0 {
			return newArrayFrom(keys[:n], vals[:n], nil), pos + 1, true
		}
		d.sc.frames = append(d.sc.frames, spill)
		return d.sc.closeFrame(), pos + 1, true
	}
}

// spillMember adds a member to a container whose members are in the
// scratch (f.start >= 0), as afterValue does.
func (sc *scratch) spillMember(f *frame, k Key, v Value) {
	if f.object {
		sc.addMember(f, k, v)
		return
	}
	sc.keys = append(sc.keys, IntKey(int64(len(sc.keys)-f.start)))
	sc.vals = append(sc.vals, v)
}
