package seglog

import (
	"encoding/binary"
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

// The run part (ids put in increasing order) and the hash part together
// behave like a map: increasing puts mixed with older ids, updates of run
// ids, removes (of the last run id too) and re-puts of removed ids.
func TestIDTableRunAndHashMatchMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 20; round++ {
		tab := newIDTable(r.IntN(100))
		ref := map[idKey]location{}
		var seen []idKey
		next := uint64(r.IntN(1000))
		for op := 0; op < 4000; op++ {
			var k idKey
			switch {
			case len(seen) == 0 || r.IntN(3) == 0: // a new, greater id
				next += uint64(1 + r.IntN(3))
				binary.BigEndian.PutUint64(k[:8], next>>2)
				binary.BigEndian.PutUint64(k[8:], next)
				seen = append(seen, k)
			case r.IntN(4) == 0: // an id between or below the known ones
				binary.BigEndian.PutUint64(k[:8], uint64(r.IntN(int(next>>2)+1)))
				binary.BigEndian.PutUint64(k[8:], uint64(r.IntN(int(next)+1)))
			case r.IntN(3) == 0:
				k = seen[len(seen)-1]
			default:
				k = seen[r.IntN(len(seen))]
			}
			if r.IntN(5) == 0 {
				tab.remove(k)
				delete(ref, k)
			} else {
				loc := location{off: r.Int64N(1e6), seg: r.Int32N(9), deleted: r.IntN(2) == 0}
				old, known := tab.put(k, loc)
				want, wantKnown := ref[k]
				if known != wantKnown || old != want {
					t.Fatalf("put %x: old %+v %v, want %+v %v", k, old, known, want, wantKnown)
				}
				ref[k] = loc
			}
			if tab.count != len(ref) {
				t.Fatalf("count %d, want %d", tab.count, len(ref))
			}
		}
		hint := 0
		for k, want := range ref {
			if got, ok := tab.get(k); !ok || got != want {
				t.Fatalf("get %x: %+v %v, want %+v", k, got, ok, want)
			}
			if got, ok := tab.getNear(k, &hint); !ok || got != want {
				t.Fatalf("getNear %x: %+v %v, want %+v", k, got, ok, want)
			}
		}
		// getNear with a moving hint agrees with get on every run id (in
		// order, as a stream asks) and on ids never put.
		hint = 0
		for i := range tab.run {
			for _, k := range []idKey{tab.run[i].key, seen[r.IntN(len(seen))], {byte(i)}} {
				got, ok := tab.getNear(k, &hint)
				want, wantOK := tab.get(k)
				if ok != wantOK || got != want {
					t.Fatalf("getNear %x: %+v %v, want %+v %v", k, got, ok, want, wantOK)
				}
			}
		}
		n := 0
		tab.each(func(k idKey, loc location) bool {
			if want, ok := ref[k]; !ok || want != loc {
				t.Fatalf("each: %x %+v, want %+v %v", k, loc, want, ok)
			}
			n++
			return true
		})
		if n != len(ref) {
			t.Fatalf("each visited %d of %d", n, len(ref))
		}
		if len(tab.run) == 0 || tab.hash.count == 0 {
			t.Fatalf("run %d, hash %d: both parts should be in use", len(tab.run), tab.hash.count)
		}
	}
}

// keyLess orders packed ids as their canonical spellings compare.
func TestKeyLessMatchesIDOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const hex = "0123456789abcdef"
	mk := func() string {
		b := []byte("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")
		for i := range b {
			if b[i] == 'x' {
				b[i] = hex[r.IntN(3)*7%16] // few digits: many equal prefixes
			}
		}
		return string(b)
	}
	for i := 0; i < 20000; i++ {
		a, b := mk(), mk()
		ka, _ := parseIDKey(a)
		kb, _ := parseIDKey(b)
		if keyLess(&ka, &kb) != (a < b) {
			t.Fatalf("keyLess(%s, %s) = %v", a, b, !(a < b))
		}
	}
}
