package seglog

import (
	"bytes"
	"maps"
	"slices"
)

// location is where an id's latest line is (docs/format/segmentedlog.md §4.1).
type location struct {
	off     int64
	seg     int32 // index into segNames
	deleted bool
}

// idKey is a canonical id (lowercase 8-4-4-4-12 hex, as PHP generates)
// packed into its 16 bytes.
type idKey [16]byte

// stateIndex is the derived state index: id -> latest location. It holds
// one entry per id ever seen (live or tombstoned), never line bytes.
// Canonical ids are keyed by their 16 bytes; any other spelling (upper
// case, foreign ids) by its exact bytes, since ids compare bytewise.
//
// A sequential index (newSequentialIndex) holds no entries at all: it
// stands for a replay in which every line so far was a put of an id
// greater than the previous line's, so every line is the current, live
// location of its id. The first line breaking that rule sets broken and
// is not recorded; the caller then replays again with a full index.
type stateIndex struct {
	uuids   map[idKey]location
	other   map[string]location
	live    int
	deleted int

	sequential bool
	broken     bool
	lastID     []byte
}

func newStateIndex() *stateIndex {
	return &stateIndex{uuids: map[idKey]location{}, other: map[string]location{}}
}

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
	const maxHint = 1 << 18 // a hostile manifest must not force a huge allocation
	return &stateIndex{uuids: make(map[idKey]location, min(lines, maxHint)), other: map[string]location{}}
}

// newSequentialIndex is an index in sequential mode (see stateIndex).
func newSequentialIndex() *stateIndex { return &stateIndex{sequential: true} }

// clone is a copy of s that applying lines to leaves s unchanged.
func (s *stateIndex) clone() *stateIndex {
	c := *s
	c.uuids, c.other = maps.Clone(s.uuids), maps.Clone(s.other)
	c.lastID = bytes.Clone(s.lastID)
	return &c
}

// idHexPairs is the offset of the two hex digits of each byte of a
// canonical id ("8-4-4-4-12").
var idHexPairs = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// hexNibble maps a lowercase hex digit to its value and any other byte to
// 0xff (never written after initialisation).
var hexNibble = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
	}
	return t
}()

// parseIDKey packs a canonical id; ok is false for any other spelling.
func parseIDKey[T ~string | ~[]byte](id T) (k idKey, ok bool) {
	if len(id) != idLen || id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' {
		return k, false
	}
	var bad byte
	for i, p := range idHexPairs {
		hi, lo := hexNibble[id[p]], hexNibble[id[p+1]]
		bad |= hi | lo
		k[i] = hi<<4 | lo
	}
	if bad > 0x0f { // some byte was not a lowercase hex digit
		return idKey{}, false
	}
	return k, true
}

func (s *stateIndex) lookup(id []byte) (location, bool) {
	if k, ok := parseIDKey(id); ok {
		loc, ok := s.uuids[k]
		return loc, ok
	}
	loc, ok := s.other[string(id)]
	return loc, ok
}

// apply makes (seg, off) the latest location of id. Any op other than
// delete makes the id live.
func (s *stateIndex) apply(id []byte, op opKind, seg int32, off int64) {
	if s.sequential {
		if s.broken {
			return
		}
		if op != opPut || (s.live > 0 && string(id) <= string(s.lastID)) {
			s.broken = true
			return
		}
		s.lastID = append(s.lastID[:0], id...)
		s.live++
		return
	}
	del := op == opDelete
	loc := location{seg: seg, off: off, deleted: del}
	var old location
	var known bool
	if k, ok := parseIDKey(id); ok {
		old, known = s.uuids[k]
		s.uuids[k] = loc
	} else {
		old, known = s.other[string(id)]
		s.other[string(id)] = loc
	}
	switch { // the live/deleted counters, from the id's previous entry
	case known && old.deleted == del:
	case known && del:
		s.live--
		s.deleted++
	case known:
		s.live++
		s.deleted--
	case del:
		s.deleted++
	default:
		s.live++
	}
}

// isCurrent reports whether (seg, off) is the latest location of a live
// id. A sequential index holds only current puts: callers read no line
// past the replayed prefixes and ask only about put lines.
func (s *stateIndex) isCurrent(id []byte, seg int32, off int64) bool {
	if s.sequential {
		return true
	}
	loc, ok := s.lookup(id)
	return ok && !loc.deleted && loc.seg == seg && loc.off == off
}

// sameAs reports whether two full indexes hold the same entries.
func (s *stateIndex) sameAs(o *stateIndex) bool {
	if len(s.uuids) != len(o.uuids) || len(s.other) != len(o.other) {
		return false
	}
	for k, a := range s.uuids {
		if b, ok := o.uuids[k]; !ok || a != b {
			return false
		}
	}
	for k, a := range s.other {
		if b, ok := o.other[k]; !ok || a != b {
			return false
		}
	}
	return true
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

// clone is a copy of t that interning names leaves t unchanged; the
// names t holds keep their ids.
func (t *segTable) clone() *segTable {
	return &segTable{names: slices.Clone(t.names), byName: maps.Clone(t.byName)}
}

func (t *segTable) lookup(name string) (int32, bool) {
	i, ok := t.byName[name]
	return i, ok
}
