package seglog

import (
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"
)

// parseIDKeyReference is the plain definition parseIDKey must match: 36
// bytes, dashes at 8/13/18/23, lowercase hex elsewhere, packed in order.
func parseIDKeyReference(id string) (idKey, bool) {
	var k idKey
	if len(id) != idLen {
		return k, false
	}
	for _, i := range []int{8, 13, 18, 23} {
		if id[i] != '-' {
			return k, false
		}
	}
	h := strings.ReplaceAll(id, "-", "")
	if len(h) != 32 || strings.ToLower(h) != h {
		return k, false
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return k, false
	}
	copy(k[:], b)
	return k, true
}

func checkParseIDKey(t *testing.T, id string) {
	t.Helper()
	want, wantOK := parseIDKeyReference(id)
	got, ok := parseIDKey(id)
	gotB, okB := parseIDKey([]byte(id))
	if ok != wantOK || okB != wantOK || (ok && (got != want || gotB != want)) {
		t.Fatalf("parseIDKey(%q) = %x %v, want %x %v", id, got, ok, want, wantOK)
	}
}

func TestParseIDKeyMatchesReference(t *testing.T) {
	base := "0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"
	checkParseIDKey(t, base)
	checkParseIDKey(t, strings.ToUpper(base))
	checkParseIDKey(t, base[:35])
	checkParseIDKey(t, base+"0")
	// Every single-byte change of every position, to every byte value.
	for i := 0; i < len(base); i++ {
		for c := 0; c < 256; c++ {
			b := []byte(base)
			b[i] = byte(c)
			checkParseIDKey(t, string(b))
		}
	}
}

func FuzzParseIDKey(f *testing.F) {
	f.Add("0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b")
	f.Add("0190A1B2-c3d4-7e5f-8a6b-7c8d9e0f1a2b")
	f.Add("0190a1b2-c3d4-7e5f-8a6b_7c8d9e0f1a2b")
	f.Fuzz(func(t *testing.T, id string) { checkParseIDKey(t, id) })
}

// Random ids: every hex digit in every position, and ids with two bytes
// replaced by any value (the SWAR check must not let one bad byte mask
// another).
func TestParseIDKeyRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 13))
	const hexd = "0123456789abcdef"
	for n := 0; n < 50000; n++ {
		b := []byte("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")
		for i := range b {
			if b[i] == 'x' {
				b[i] = hexd[r.IntN(16)]
			}
		}
		if n%2 == 1 {
			b[r.IntN(len(b))] = byte(r.IntN(256))
			b[r.IntN(len(b))] = byte(r.IntN(256))
		}
		checkParseIDKey(t, string(b))
	}
}
