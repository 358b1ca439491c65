package uuidv7

import (
	"bytes"
	"testing"

	"github.com/google/uuid"
)

// putText must print what google/uuid prints for the same 16 bytes.
func FuzzPutText(f *testing.F) {
	f.Add(int64(vectorTs), []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0xfe})
	f.Add(int64(MaxTimestampMs), bytes.Repeat([]byte{0xff}, 10))
	f.Add(int64(0), make([]byte, 10))
	f.Fuzz(func(t *testing.T, ts int64, raw []byte) {
		ts &= MaxTimestampMs
		var e [10]byte
		copy(e[:], raw)
		var u uuid.UUID
		for i, v := 5, ts; i >= 0; i-- {
			u[i] = byte(v)
			v >>= 8
		}
		u[6] = 0x70 | e[0]&0x0f
		u[7] = e[1]
		u[8] = 0x80 | e[2]&0x3f
		copy(u[9:], e[3:])
		var got [TextLen]byte
		putText(got[:], ts, e)
		if string(got[:]) != u.String() || !Valid(string(got[:])) {
			t.Fatalf("putText = %q, google/uuid %q", got, u.String())
		}
	})
}
