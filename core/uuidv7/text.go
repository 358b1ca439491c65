package uuidv7

import "encoding/hex"

// TextLen is the length of an id's text form.
const TextLen = 36

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
	hex.Encode(dst[0:8], u[0:4])
	dst[8] = '-'
	hex.Encode(dst[9:13], u[4:6])
	dst[13] = '-'
	hex.Encode(dst[14:18], u[6:8])
	dst[18] = '-'
	hex.Encode(dst[19:23], u[8:10])
	dst[23] = '-'
	hex.Encode(dst[24:36], u[10:16])
}
