package docindex

import (
	"errors"
	"io/fs"
	"sort"
	"strings"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// EqualityValues returns the values that occur in field's equality
// entries (docs/format/indexes.md §5.1): the stored "value" of every entry
// file of eq/<FK(f)>/, in file-name order. Entry files that vanish or do
// not decode mid-listing are skipped (a concurrent rewrite); a missing
// directory is no values. Takes no lock.
func (m *Manager) EqualityValues(field string) ([]phpjson.Value, error) {
	dir := m.paths.eqDir(field)
	entries, err := fsutil.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &PHPError{Msg: "Could not read equality index: " + dir, Err: err}
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ".jsonc") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	values := make([]phpjson.Value, 0, len(names))
	for _, n := range names {
		obj, _, err := readEntry(dir + "/" + n)
		if err != nil || obj == nil {
			continue
		}
		if v, ok := obj.Lookup("value"); ok && indexable(v) {
			values = append(values, v)
		}
	}
	return values, nil
}
