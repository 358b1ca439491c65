package seglog

import "encoding/binary"

// idTable maps canonical ids to locations. storh ids are UUIDv7s, which
// mostly arrive in increasing order, so the table has two parts:
//
//   - run: the ids that were greater than every id already in the table
//     when first put, in that (sorted) order, found by binary search.
//     Appending there touches memory in order, where a hash insert is a
//     random access into a table larger than the CPU's L1/L2 caches.
//   - hash: every other id (idHash, seeded: hostile ids cannot be aimed
//     at one probe sequence).
//
// Invariants: an id is in at most one part; every key of hash is below
// the last key of run (so hash is empty while run is). A removed run id
// keeps its slot (used = false) so that run stays sorted and its last key
// never decreases.
type idTable struct {
	run   []idSlot
	hash  *idHash
	count int // ids present (used slots of run and hash)
}

// newIDTable returns a table with room for hint increasing ids before it
// grows.
func newIDTable(hint int) *idTable {
	return &idTable{run: make([]idSlot, 0, hint), hash: newIDHash(0)}
}

// keyLess orders ids bytewise (packed keys order as their canonical
// spellings do: hex digits map to nibbles in order).
func keyLess(a, b *idKey) bool {
	a0, b0 := binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8])
	if a0 != b0 {
		return a0 < b0
	}
	return binary.BigEndian.Uint64(a[8:]) < binary.BigEndian.Uint64(b[8:])
}

// afterRun reports whether k is greater than every id run has held.
func (t *idTable) afterRun(k *idKey) bool {
	return len(t.run) == 0 || keyLess(&t.run[len(t.run)-1].key, k)
}

// inRun returns k's run slot (used or removed), or nil.
func (t *idTable) inRun(k *idKey) *idSlot {
	if i := t.runIndex(k); i >= 0 {
		return &t.run[i]
	}
	return nil
}

// runIndex is the index of k's run slot (binary search), or -1.
func (t *idTable) runIndex(k *idKey) int {
	hi0, lo0 := binary.BigEndian.Uint64(k[:8]), binary.BigEndian.Uint64(k[8:])
	lo, hi := 0, len(t.run) // the first slot >= k is in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		s := &t.run[m]
		h, l := binary.BigEndian.Uint64(s.key[:8]), binary.BigEndian.Uint64(s.key[8:])
		if h < hi0 || (h == hi0 && l < lo0) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.run) && t.run[lo].key == *k {
		return lo
	}
	return -1
}

// getNear is get for callers looking up ids in increasing order (a
// stream reading a segment): *hint, the run slot found last, and the one
// after it are tried before a search, and *hint is moved to the slot
// found. hint belongs to the caller, so readers share nothing.
func (t *idTable) getNear(k idKey, hint *int) (location, bool) {
	if t.afterRun(&k) {
		return location{}, false
	}
	s := t.nearRun(&k, hint)
	if s == nil {
		return t.hash.get(k)
	}
	if !s.used {
		return location{}, false
	}
	return s.loc(), true
}

// nearRun is inRun trying *hint and *hint+1 first.
func (t *idTable) nearRun(k *idKey, hint *int) *idSlot {
	for i := *hint; i < len(t.run) && i <= *hint+1; i++ {
		if t.run[i].key == *k {
			*hint = i
			return &t.run[i]
		}
	}
	i := t.runIndex(k)
	if i < 0 {
		return nil
	}
	*hint = i
	return &t.run[i]
}

func (t *idTable) get(k idKey) (location, bool) {
	if t.afterRun(&k) {
		return location{}, false
	}
	if s := t.inRun(&k); s != nil {
		if !s.used {
			return location{}, false
		}
		return s.loc(), true
	}
	return t.hash.get(k)
}

// put sets k's location and returns the previous one, if any.
func (t *idTable) put(k idKey, loc location) (old location, known bool) {
	if t.afterRun(&k) {
		t.run = append(t.run, idSlot{key: k, used: true})
		t.run[len(t.run)-1].set(loc)
		t.count++
		return location{}, false
	}
	if s := t.inRun(&k); s != nil {
		old, known = s.loc(), s.used
		s.set(loc)
		if !known {
			s.used = true
			t.count++
			old = location{}
		}
		return old, known
	}
	old, known = t.hash.put(k, loc)
	if !known {
		t.count++
	}
	return old, known
}

// remove deletes k.
func (t *idTable) remove(k idKey) {
	if t.afterRun(&k) {
		return
	}
	if s := t.inRun(&k); s != nil {
		if s.used {
			s.used = false
			t.count--
		}
		return
	}
	n := t.hash.count
	t.hash.remove(k)
	t.count -= n - t.hash.count
}

// each calls fn for every id (in no particular order) until fn returns
// false.
func (t *idTable) each(fn func(k idKey, loc location) bool) {
	for i := range t.run {
		if t.run[i].used && !fn(t.run[i].key, t.run[i].loc()) {
			return
		}
	}
	t.hash.each(fn)
}
