package seglog

import (
	"crypto/rand"
	"encoding/binary"
	"math/bits"
)

// idHash maps canonical ids to locations: open addressing with linear
// probing over a power-of-two slot array kept at most 3/4 full. An upsert
// is one probe sequence (a Go map needs a lookup and an assignment), and
// slots hold key and location together.
//
// Slots are placed by a hash seeded at random per table, so ids crafted
// in a hostile segment cannot be aimed at one probe sequence.
type idHash struct {
	slots  []idSlot
	count  int
	seedLo uint64
	seedHi uint64
}

// idSlot is 32 bytes: the key and the location's fields side by side.
type idSlot struct {
	key     idKey
	off     int64
	seg     int32
	deleted bool
	used    bool
}

func (s *idSlot) loc() location { return location{off: s.off, seg: s.seg, deleted: s.deleted} }

func (s *idSlot) set(loc location) { s.off, s.seg, s.deleted = loc.off, loc.seg, loc.deleted }

const minTableSlots = 16

// newIDHash returns a table with room for hint ids before it grows.
func newIDHash(hint int) *idHash {
	n := minTableSlots
	for n*3/4 < hint {
		n *= 2
	}
	var seed [16]byte
	_, _ = rand.Read(seed[:]) // crypto/rand.Read never fails on Linux
	return &idHash{
		slots:  make([]idSlot, n),
		seedLo: binary.LittleEndian.Uint64(seed[:8]),
		seedHi: binary.LittleEndian.Uint64(seed[8:]),
	}
}

func (t *idHash) hash(k *idKey) uint64 {
	hi, lo := bits.Mul64(binary.LittleEndian.Uint64(k[:8])^t.seedLo, binary.LittleEndian.Uint64(k[8:])^t.seedHi)
	return hi ^ lo
}

// find returns the slot holding k, or the empty slot where it would go.
func (t *idHash) find(k *idKey) *idSlot {
	mask := uint64(len(t.slots) - 1)
	for i := t.hash(k) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if !s.used || s.key == *k {
			return s
		}
	}
}

func (t *idHash) get(k idKey) (location, bool) {
	s := t.find(&k)
	return s.loc(), s.used
}

// put sets k's location and returns the previous one, if any.
func (t *idHash) put(k idKey, loc location) (old location, known bool) {
	s := t.find(&k)
	if s.used {
		old = s.loc()
		s.set(loc)
		return old, true
	}
	if (t.count+1)*4 > len(t.slots)*3 {
		t.grow()
		s = t.find(&k)
	}
	*s = idSlot{key: k, used: true}
	s.set(loc)
	t.count++
	return location{}, false
}

func (t *idHash) grow() {
	old := t.slots
	t.slots = make([]idSlot, len(old)*2)
	for i := range old {
		if old[i].used {
			*t.find(&old[i].key) = old[i]
		}
	}
}

// remove deletes k (backward-shift deletion: every later slot of the probe
// run is moved up where its own probe sequence allows, so no tombstones).
func (t *idHash) remove(k idKey) {
	mask := uint64(len(t.slots) - 1)
	i := t.hash(&k) & mask
	for ; ; i = (i + 1) & mask {
		if !t.slots[i].used {
			return
		}
		if t.slots[i].key == k {
			break
		}
	}
	t.count--
	for j := (i + 1) & mask; t.slots[j].used; j = (j + 1) & mask {
		home := t.hash(&t.slots[j].key) & mask
		// slots[j] may fill the hole at i if its home is not in (i, j].
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = idSlot{}
}

// each calls fn for every id (in no particular order).
func (t *idHash) each(fn func(k idKey, loc location) bool) {
	for i := range t.slots {
		if t.slots[i].used && !fn(t.slots[i].key, t.slots[i].loc()) {
			return
		}
	}
}
