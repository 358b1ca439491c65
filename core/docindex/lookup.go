package docindex

import (
	"errors"
	"io/fs"
	"sort"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// EqualityIDs returns the ids stored for field == v (docs/format/indexes.md §11.3): for an
// equality (or unique) field the raw-scanned ids of eq/<FK>/<VK(v)>.jsonc,
// for a range field the range lookup of RK(v) with a strict value check.
// A non-indexable operand (array) has no ids. indexed is false when field
// has no definition. Takes no lock.
func (m *Manager) EqualityIDs(field string, v phpjson.Value) (ids []string, indexed bool, err error) {
	d, ok, err := m.lookupDefinition(field)
	if err != nil || !ok {
		return nil, false, err
	}
	ids, err = m.idsForValue(d, v)
	return ids, true, err
}

// EqualityCount is PHP count_for_value: the stored count of the entry file
// (0 when it or the operand is missing/unindexable). For a range field
// without an entry file PHP cannot count from the index: indexed is false.
func (m *Manager) EqualityCount(field string, v phpjson.Value) (n int64, indexed bool, err error) {
	d, ok, err := m.lookupDefinition(field)
	if err != nil || !ok {
		return 0, false, err
	}
	if !indexable(v) {
		return 0, true, nil
	}
	vk := ValueKey(v)
	path := m.paths.eqFile(field, vk)
	if d.Range && !isFile(path) {
		return 0, false, nil
	}
	n, err = rawEntryCount(path, vk)
	return n, true, err
}

// CompoundCount is the stored count of the automatic compound entry for
// f1 == v1 && f2 == v2 (PHP compound_count_for_group, docs/format/indexes.md
// §11.2). indexed is false unless both fields are defined, different,
// neither range nor unique, and both operands indexable; the pair is
// ordered bytewise by name.
func (m *Manager) CompoundCount(f1 string, v1 phpjson.Value, f2 string, v2 phpjson.Value) (n int64, indexed bool, err error) {
	path, ck, ok, err := m.compoundLookup(f1, v1, f2, v2)
	if err != nil || !ok {
		return 0, false, err
	}
	n, err = rawEntryCount(path, ck)
	return n, true, err
}

func (m *Manager) compoundLookup(f1 string, v1 phpjson.Value, f2 string, v2 phpjson.Value) (path, ck string, ok bool, err error) {
	if f1 == f2 || !indexable(v1) || !indexable(v2) {
		return "", "", false, nil
	}
	d1, ok1, err := m.lookupDefinition(f1)
	if err != nil {
		return "", "", false, err
	}
	d2, ok2, err := m.lookupDefinition(f2)
	if err != nil {
		return "", "", false, err
	}
	if !ok1 || !ok2 || d1.Range || d2.Range || d1.Unique || d2.Unique {
		return "", "", false, nil
	}
	if f2 < f1 {
		f1, f2, v1, v2 = f2, f1, v2, v1
	}
	ck = CompoundKey(v1, v2)
	return m.paths.compoundFile(f1, f2, ck), ck, true, nil
}

// idsForValue is PHP ids_for_value for one definition.
func (m *Manager) idsForValue(d Definition, v phpjson.Value) ([]string, error) {
	if !indexable(v) {
		return nil, nil
	}
	vk := ValueKey(v)
	path := m.paths.eqFile(d.Field, vk)
	if d.Range && !isFile(path) {
		return m.rangeValueIDs(d.Field, v)
	}
	return rawEntryIDs(path, vk)
}

func (m *Manager) lookupDefinition(field string) (Definition, bool, error) {
	defs, err := m.definitions()
	if err != nil {
		return Definition{}, false, err
	}
	i := sort.Search(len(defs), func(i int) bool { return defs[i].Field >= field })
	if i < len(defs) && defs[i].Field == field {
		return defs[i], true, nil
	}
	return Definition{}, false, nil
}

// absent reports whether a failed read of path means "no file": PHP's
// is_file() is false for any stat failure (missing, a name too long, a
// component not a directory) and for non-regular files. A file that
// vanished between checks (a concurrent rebuild) is absent too.
func absent(path string, readErr error) bool {
	return errors.Is(readErr, fs.ErrNotExist) || !isFile(path)
}

func isFile(path string) bool {
	fi, err := fsutil.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
