package uuidv7

import "unsafe"

// TextLen is the length of an id's text form.
const TextLen = 36

// NewBatch returns n consecutive ids for one clock reading: exactly the ids
// n calls of NewAt(ms) would return, ms being the clock read once. They
// share the monotonic state with New and NewAt, are strictly increasing
// within the batch (except at the 80-bit wrap and the hidden-bit carry of
// docs/format/docstore.md §3.2, as for single ids) and share one backing string, so a kept id
// keeps the whole batch's text (36*n bytes) reachable.
func (g *Generator) NewBatch(n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	ms := g.nowMs()
	if ms < 0 || ms > MaxTimestampMs {
		return nil, ErrTimestampRange
	}
	text := make([]byte, n*TextLen)
	g.mu.Lock()
	var prev [10]byte
	for i := 0; i < n; i++ {
		e, err := g.nextEntropy(ms)
		if err != nil {
			g.mu.Unlock()
			return nil, err
		}
		id := text[i*TextLen : (i+1)*TextLen]
		if i > 0 && e[9] != 0 && [9]byte(e[:9]) == [9]byte(prev[:9]) {
			// Common case: the counter step only changed e9, the last byte.
			*(*[TextLen]byte)(id) = [TextLen]byte(text[(i-1)*TextLen:])
			putHexByte(id[34:], e[9])
		} else {
			putText(id, ms, e)
		}
		prev = e
	}
	g.mu.Unlock()
	// text is never written again, so it can back the strings directly.
	all := unsafe.String(unsafe.SliceData(text), len(text))
	ids := make([]string, n)
	for i := range ids {
		ids[i] = all[i*TextLen : (i+1)*TextLen]
	}
	return ids, nil
}

const lowerHex = "0123456789abcdef"

// putText writes the 36-byte lowercase id of ts and entropy e into
// dst[:36]: the 48-bit timestamp as 8-4 hex digits, version 7 over e0's low
// nibble, e1, variant 10 over e2's low six bits, then e3..e9 (docs/format/docstore.md §3.2).
func putText(dst []byte, ts int64, e [10]byte) {
	_ = dst[TextLen-1]
	var u [16]byte
	for i := 5; i >= 0; i-- {
		u[i] = byte(ts)
		ts >>= 8
	}
	u[6] = 0x70 | e[0]&0x0f
	u[7] = e[1]
	u[8] = 0x80 | e[2]&0x3f
	copy(u[9:], e[3:])
	putHexBytes(dst[0:8], u[0:4])
	dst[8] = '-'
	putHexBytes(dst[9:13], u[4:6])
	dst[13] = '-'
	putHexBytes(dst[14:18], u[6:8])
	dst[18] = '-'
	putHexBytes(dst[19:23], u[8:10])
	dst[23] = '-'
	putHexBytes(dst[24:36], u[10:16])
}

// putHexBytes writes src as lowercase hex into dst[:2*len(src)].
func putHexBytes(dst, src []byte) {
	for i, c := range src {
		putHexByte(dst[2*i:], c)
	}
}

func putHexByte(dst []byte, c byte) {
	dst[0] = lowerHex[c>>4]
	dst[1] = lowerHex[c&0x0f]
}
