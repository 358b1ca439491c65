package seglog

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// idTable behaves like a Go map under random puts, gets and removes,
// including keys that share their home slot.
func TestIDTableMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		tab := newIDTable(r.IntN(40))
		ref := map[idKey]location{}
		keys := make([]idKey, 300)
		for i := range keys {
			keys[i][r.IntN(16)] = byte(r.IntN(4)) // few distinct bits: many collisions
			keys[i][15] = byte(i)
			keys[i][14] = byte(i >> 8)
		}
		for op := 0; op < 5000; op++ {
			k := keys[r.IntN(len(keys))]
			switch r.IntN(3) {
			case 0:
				loc := location{off: r.Int64N(1e6), seg: r.Int32N(9), deleted: r.IntN(2) == 0}
				old, known := tab.put(k, loc)
				want, wantKnown := ref[k]
				if known != wantKnown || old != want {
					t.Fatalf("put old %+v %v, want %+v %v", old, known, want, wantKnown)
				}
				ref[k] = loc
			case 1:
				tab.remove(k)
				delete(ref, k)
			}
			got, ok := tab.get(k)
			want, wantOK := ref[k]
			if ok != wantOK || got != want || tab.count != len(ref) {
				t.Fatalf("get %+v %v count %d, want %+v %v %d", got, ok, tab.count, want, wantOK, len(ref))
			}
		}
		n := 0
		tab.each(func(k idKey, loc location) bool {
			if ref[k] != loc {
				t.Fatalf("each: %x %+v, want %+v", k, loc, ref[k])
			}
			n++
			return true
		})
		if n != len(ref) {
			t.Fatalf("each visited %d of %d", n, len(ref))
		}
	}
}

func TestIDSlotSize(t *testing.T) {
	if n := unsafe.Sizeof(idSlot{}); n != 32 {
		t.Fatalf("idSlot is %d bytes, want 32 (two per cache line)", n)
	}
}
