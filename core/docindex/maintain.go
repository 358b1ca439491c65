package docindex

import "github.com/storhfs/storhfs/core/phpjson"

// CheckUnique is PHP validate_unique: for every unique definition whose
// field is present and indexable in data, look up the ids stored for that
// exact value (equality: raw scan of the entry file; unique+range: the range
// lookup) and fail with *UniqueViolationError if any id other than id is
// found. Nothing is written. null values are indexed, so two nulls collide
// (PHP quirk "unique-null"); a missing field never collides.
func (m *Manager) CheckUnique(id string, data *phpjson.Array) error {
	defs, err := m.definitions()
	if err != nil {
		return err
	}
	for _, d := range defs {
		if !d.Unique {
			continue
		}
		v, ok := fieldValue(data, d.Field)
		if !ok {
			continue
		}
		ids, err := m.idsForValue(d, v)
		if err != nil {
			return err
		}
		for _, other := range ids {
			if other != id {
				return &UniqueViolationError{Field: d.Field}
			}
		}
	}
	return nil
}

// UpdateRecord maintains the indexes after the record file of id was
// written (docs/format/indexes.md §9; call under the write lock). old is the record's
// previous data (nil for a new record): its entries are removed first, then
// the entries of data are added, even when nothing changed. Order of file
// operations, as PHP: old range remove lines, old equality and compound
// removals; new range add lines (appended while collecting), then the new
// equality and compound files.
func (m *Manager) UpdateRecord(id string, old, data *phpjson.Array) error {
	defs, err := m.definitions()
	if err != nil {
		return err
	}
	if old != nil {
		if err := m.removeRecord(defs, id, old); err != nil {
			return err
		}
	}
	var pending []pendingEntry
	var pairFields []string
	var pairValues []phpjson.Value
	for _, d := range defs {
		v, ok := fieldValue(data, d.Field)
		if !ok {
			continue
		}
		if d.Range {
			if err := m.appendDelta(d.Field, v, id, true); err != nil {
				return err
			}
			continue
		}
		vk := ValueKey(v)
		pending = append(pending, pendingEntry{path: m.paths.eqFile(d.Field, vk), field: d.Field, key: vk, value: v})
		if !d.Unique {
			pairFields = append(pairFields, d.Field)
			pairValues = append(pairValues, v)
		}
	}
	forEachPair(pairFields, pairValues, func(l, r string, vl, vr phpjson.Value) {
		ck := CompoundKey(vl, vr)
		pending = append(pending, pendingEntry{path: m.paths.compoundFile(l, r, ck), field: l + "\t" + r, key: ck})
	})
	for _, p := range pending {
		if err := addToEntry(p.path, p.field, p.key, p.value, []string{id}); err != nil {
			return err
		}
	}
	return nil
}

// RemoveRecord removes the entries of a deleted record (its data old) after
// its file was unlinked (docs/format/indexes.md §9; call under the write lock).
func (m *Manager) RemoveRecord(id string, old *phpjson.Array) error {
	defs, err := m.definitions()
	if err != nil {
		return err
	}
	return m.removeRecord(defs, id, old)
}

// removeRecord is PHP remove_record: per definition in order, a range
// remove line or an equality removal; then the compound removals of the
// non-unique equality fields present.
func (m *Manager) removeRecord(defs []Definition, id string, old *phpjson.Array) error {
	var pairFields []string
	var pairValues []phpjson.Value
	for _, d := range defs {
		v, ok := fieldValue(old, d.Field)
		if !ok {
			continue
		}
		if d.Range {
			if err := m.appendDelta(d.Field, v, id, false); err != nil {
				return err
			}
			continue
		}
		vk := ValueKey(v)
		if err := removeFromEntry(m.paths.eqFile(d.Field, vk), vk, id); err != nil {
			return err
		}
		if !d.Unique {
			pairFields = append(pairFields, d.Field)
			pairValues = append(pairValues, v)
		}
	}
	var firstErr error
	forEachPair(pairFields, pairValues, func(l, r string, vl, vr phpjson.Value) {
		if firstErr != nil {
			return
		}
		ck := CompoundKey(vl, vr)
		firstErr = removeFromEntry(m.paths.compoundFile(l, r, ck), ck, id)
	})
	return firstErr
}

// pendingEntry is one equality or compound file to gain an id.
type pendingEntry struct {
	path, field, key string
	value            phpjson.Value // null for compound entries
}

// forEachPair calls fn for every pair (i < j) of fields in order: the
// automatic compound pairs (7.6) of one record.
func forEachPair(fields []string, values []phpjson.Value, fn func(l, r string, vl, vr phpjson.Value)) {
	for i := 0; i < len(fields)-1; i++ {
		for j := i + 1; j < len(fields); j++ {
			fn(fields[i], fields[j], values[i], values[j])
		}
	}
}
