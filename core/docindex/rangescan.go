package docindex

import (
	"maps"
	"slices"
	"sort"

	"github.com/storhfs/storhfs/core/phpjson"
)

// groupKey identifies one distinct indexed value of a range field: its RK
// and VK (int 1 and float 1.0 share an RK but not a VK).
type groupKey struct{ rk, vk string }

func (a groupKey) less(b groupKey) bool {
	if a.rk != b.rk {
		return a.rk < b.rk
	}
	return a.vk < b.vk
}

// rangeGroup is the effective content of one distinct value.
type rangeGroup struct {
	key   groupKey
	value phpjson.Value
	ids   idSet
	delta []rangeEntry // delta lines of this value, in file order
}

// RangeScan walks the range index of field between the range keys fromKey
// and toKey (inclusive; "" = open) in RK order (then VK), calling fn once
// per distinct value with its effective ids, sorted: main-file lines (read
// from the sparse checkpoint before fromKey, stopping after toKey) first,
// then the delta lines, adds then removes per line (7.7). Values left with
// no ids are not reported. indexed is false when field is not a range
// field. Takes no lock: undecodable lines (torn, foreign) are absent, and
// unreadable files have no lines, as in PHP.
//
// PHP checks a line's window only when its key can be read from the text;
// here a decodable line without a string key is placed by RK(value). The
// caller filters values with the operator's own semantics.
func (m *Manager) RangeScan(field, fromKey, toKey string, fn func(key string, value phpjson.Value, ids []string) error) (indexed bool, err error) {
	d, ok, err := m.lookupDefinition(field)
	if err != nil || !ok || !d.Range {
		return false, err
	}
	inWindow := func(k string) bool {
		return (fromKey == "" || k >= fromKey) && (toKey == "" || k <= toKey)
	}
	decodeInWindow := func(line []byte) (rangeEntry, groupKey, bool) {
		if lk, ok := rangeLineKey(line); ok && !inWindow(lk) {
			return rangeEntry{}, groupKey{}, false
		}
		e, ok := decodeRangeLine(line)
		if !ok {
			return rangeEntry{}, groupKey{}, false
		}
		rk := e.key
		if !e.hasKey {
			rk = RangeKey(e.value)
		}
		if !inWindow(rk) {
			return rangeEntry{}, groupKey{}, false
		}
		return e, groupKey{rk: rk, vk: ValueKey(e.value)}, true
	}

	// The delta is small (changes since the last rebuild): hold it grouped.
	deltas := map[groupKey]*rangeGroup{}
	err = forEachLine(m.paths.rangeDelta(field), 0, func(line []byte) error {
		e, gk, ok := decodeInWindow(line)
		if !ok {
			return nil
		}
		g := deltas[gk]
		if g == nil {
			g = &rangeGroup{key: gk, value: e.value}
			deltas[gk] = g
		}
		g.delta = append(g.delta, e)
		return nil
	})
	if err = tolerateUnreadable(err); err != nil {
		return true, err
	}
	pendingDeltas := slices.Collect(maps.Values(deltas))
	sort.Slice(pendingDeltas, func(i, j int) bool { return pendingDeltas[i].key.less(pendingDeltas[j].key) })

	emit := func(g *rangeGroup) error {
		if g.ids == nil {
			g.ids = idSet{}
		}
		for _, e := range g.delta {
			g.ids.apply(e)
		}
		if len(g.ids) == 0 {
			return nil
		}
		return fn(g.key.rk, g.value, g.ids.sorted())
	}
	// emitDeltasBefore emits the delta-only groups ordered before gk and,
	// when present, returns the delta lines of gk itself.
	emitDeltasBefore := func(gk groupKey) ([]rangeEntry, error) {
		for len(pendingDeltas) > 0 && pendingDeltas[0].key.less(gk) {
			if err := emit(pendingDeltas[0]); err != nil {
				return nil, err
			}
			pendingDeltas = pendingDeltas[1:]
		}
		if len(pendingDeltas) > 0 && pendingDeltas[0].key == gk {
			lines := pendingDeltas[0].delta
			pendingDeltas = pendingDeltas[1:]
			return lines, nil
		}
		return nil, nil
	}

	var cur *rangeGroup
	flush := func() error {
		if cur == nil {
			return nil
		}
		lines, err := emitDeltasBefore(cur.key)
		if err != nil {
			return err
		}
		cur.delta = lines
		g := cur
		cur = nil
		return emit(g)
	}
	start := seekOffset(m.readCheckpoints(field), fromKey)
	err = forEachLine(m.paths.rangeMain(field), start, func(line []byte) error {
		if lk, ok := rangeLineKey(line); ok && toKey != "" && lk > toKey {
			return errStopLines
		}
		e, gk, ok := decodeInWindow(line)
		if !ok {
			return nil
		}
		if cur != nil && cur.key != gk {
			if err := flush(); err != nil {
				return err
			}
		}
		if cur == nil {
			cur = &rangeGroup{key: gk, value: e.value, ids: idSet{}}
		}
		cur.ids.apply(e)
		return nil
	})
	if err = tolerateUnreadable(err); err != nil {
		return true, err
	}
	if err := flush(); err != nil {
		return true, err
	}
	for _, g := range pendingDeltas {
		if err := emit(g); err != nil {
			return true, err
		}
	}
	return true, nil
}
