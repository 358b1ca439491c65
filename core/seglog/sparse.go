package seglog

import (
	"strconv"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// Sparse index files segments/<base>.idx.jsonc (docs/format/segmentedlog.md §1.5):
// {"entries":[{"id":"<id>","offset":<int>},...]} plus "\n", one entry per
// interval-th line (ordinal 0 first). Only a seek hint.

type sparseEntry struct {
	ID     string
	Offset int64
}

// encodeSparse renders an idx file exactly as PHP does.
func encodeSparse(entries []sparseEntry) ([]byte, error) {
	b := make([]byte, 0, 16+len(entries)*64)
	b = append(b, `{"entries":[`...)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		var err error
		if b, err = phpjson.AppendString(b, e.ID); err != nil {
			return nil, err
		}
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, e.Offset, 10)
		b = append(b, '}')
	}
	return append(b, "]}\n"...), nil
}

func writeSparse(path string, entries []sparseEntry) error {
	b, err := encodeSparse(entries)
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, b)
}

// seekOffset is the offset of the last entry (array order) of the idx
// file at path whose id <= seek, or 0. Entries with a non-string id or
// non-int offset are ignored; a missing or unreadable file gives 0.
func seekOffset(path, seek string) int64 {
	b, err := fsutil.ReadFile(path)
	if err != nil {
		return 0
	}
	doc, err := phpjson.DecodeJSONCObject(b)
	if err != nil {
		return 0
	}
	ev, _ := doc.Lookup("entries")
	list, ok := ev.(*phpjson.Array)
	if !ok {
		return 0
	}
	var off int64
	for _, item := range list.Values() {
		obj, ok := item.(*phpjson.Array)
		if !ok {
			continue
		}
		idv, _ := obj.Lookup("id")
		offv, _ := obj.Lookup("offset")
		id, ok1 := idv.(string)
		o, ok2 := offv.(int64)
		if ok1 && ok2 && id <= seek {
			off = o
		}
	}
	return off
}
