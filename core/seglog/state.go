package seglog

// location is where an id's latest line is (spec 4.1).
type location struct {
	seg     int32 // index into segNames
	deleted bool
	off     int64
}

// stateIndex is the derived state index: id -> latest location. It holds
// one entry per id ever seen (live or tombstoned), never line bytes.
type stateIndex struct {
	ids     map[string]*location
	live    int
	deleted int
	slab    []location // locations are carved from chunks to spare allocations
}

const slabSize = 1024

func (s *stateIndex) newLocation(l location) *location {
	if len(s.slab) == 0 {
		s.slab = make([]location, slabSize)
	}
	p := &s.slab[0]
	*p = l
	s.slab = s.slab[1:]
	return p
}

func newStateIndex() *stateIndex { return &stateIndex{ids: make(map[string]*location)} }

// newStateIndexFor sizes the index for the lines a manifest lists (an
// upper bound of its ids when the stats are current), sparing map growth
// during replay.
func newStateIndexFor(m *manifest) *stateIndex {
	var lines int64
	for _, e := range m.segments() {
		if e.records > 0 {
			lines += e.records
		}
	}
	const maxHint = 1 << 20 // a hostile manifest must not force a huge allocation
	return &stateIndex{ids: make(map[string]*location, min(lines, maxHint))}
}

// apply makes (seg, off) the latest location of id. Any op other than
// delete makes the id live.
func (s *stateIndex) apply(id []byte, op opKind, seg int32, off int64) {
	del := op == opDelete
	if loc, ok := s.ids[string(id)]; ok {
		if loc.deleted != del {
			if del {
				s.live--
				s.deleted++
			} else {
				s.live++
				s.deleted--
			}
		}
		loc.seg, loc.off, loc.deleted = seg, off, del
		return
	}
	s.ids[string(id)] = s.newLocation(location{seg: seg, off: off, deleted: del})
	if del {
		s.deleted++
	} else {
		s.live++
	}
}

// remove forgets id entirely (compaction of a tombstone).
func (s *stateIndex) remove(id string) {
	if loc, ok := s.ids[id]; ok {
		if loc.deleted {
			s.deleted--
		} else {
			s.live--
		}
		delete(s.ids, id)
	}
}

// isCurrent reports whether (seg, off) is the latest location of a live id.
func (s *stateIndex) isCurrent(id []byte, seg int32, off int64) bool {
	loc, ok := s.ids[string(id)]
	return ok && !loc.deleted && loc.seg == seg && loc.off == off
}

// segTable interns segment file names so locations stay small.
type segTable struct {
	names  []string
	byName map[string]int32
}

func newSegTable() *segTable { return &segTable{byName: map[string]int32{}} }

func (t *segTable) id(name string) int32 {
	if i, ok := t.byName[name]; ok {
		return i
	}
	i := int32(len(t.names))
	t.names = append(t.names, name)
	t.byName[name] = i
	return i
}

func (t *segTable) lookup(name string) (int32, bool) {
	i, ok := t.byName[name]
	return i, ok
}
