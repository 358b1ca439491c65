package docindex

import (
	"sort"
	"strconv"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// entry is the content of one equality or compound entry file (7.4, 7.6):
//
//	{"field":"<f>","key":"<VK|CK>","count":<N>,"value":<J(v)>,"ids":["<id>",...]}\n
//
// Compound entries have field "L\tR" and value null.
type entry struct {
	field string
	key   string
	value phpjson.Value
	ids   []string // sorted bytewise, unique
}

// encode returns the canonical bytes; count is len(ids).
func (e *entry) encode() ([]byte, error) {
	buf := make([]byte, 0, 64+len(e.field)+len(e.key)+40*len(e.ids))
	buf = append(buf, `{"field":`...)
	buf, err := phpjson.AppendEncode(buf, e.field)
	if err != nil {
		return nil, err
	}
	buf = append(buf, `,"key":`...)
	if buf, err = phpjson.AppendEncode(buf, e.key); err != nil {
		return nil, err
	}
	buf = append(buf, `,"count":`...)
	buf = strconv.AppendInt(buf, int64(len(e.ids)), 10)
	buf = append(buf, `,"value":`...)
	if buf, err = phpjson.AppendEncode(buf, e.value); err != nil {
		return nil, err
	}
	buf = append(buf, `,"ids":`...)
	if buf, err = appendStringList(buf, e.ids); err != nil {
		return nil, err
	}
	return append(buf, '}', '\n'), nil
}

func (e *entry) write(path string) error {
	content, err := e.encode()
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, content)
}

// appendStringList appends a JSON list of strings.
func appendStringList(buf []byte, items []string) ([]byte, error) {
	buf = append(buf, '[')
	for i, s := range items {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = phpjson.AppendString(buf, s); err != nil {
			return nil, err
		}
	}
	return append(buf, ']'), nil
}

// stringIDs returns the string members of obj["ids"] in order (PHP
// ids_from_value_entry: non-strings are skipped, a non-array gives none).
func stringIDs(obj *phpjson.Array, key string) []string {
	list, ok := lookupArray(obj, key)
	if !ok {
		return nil
	}
	ids := make([]string, 0, list.Len())
	for _, v := range list.Values() {
		if s, ok := v.(string); ok {
			ids = append(ids, s)
		}
	}
	return ids
}

// sortedUnique sorts ids bytewise and drops duplicates, in place; a list
// that is already strictly increasing (sources yield ids in order) is
// returned as is.
func sortedUnique(ids []string) []string {
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			sort.Strings(ids)
			break
		}
	}
	out := ids[:0]
	for i, id := range ids {
		if i == 0 || id != ids[i-1] {
			out = append(out, id)
		}
	}
	return out
}

// addToEntry is PHP merge_index_buckets for one file: union the ids already
// stored at path (decoded; field and key are not checked) with add, sort,
// and rewrite with the given field, key and value.
func addToEntry(path, field, key string, value phpjson.Value, add []string) error {
	content, err := mergedEntry(path, field, key, value, add)
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, content)
}

// mergedEntry returns the bytes addToEntry writes, reading the stored ids.
func mergedEntry(path, field, key string, value phpjson.Value, add []string) ([]byte, error) {
	_, ids, err := readEntry(path)
	if err != nil {
		return nil, err
	}
	ids = sortedUnique(append(ids, add...))
	e := entry{field: field, key: key, value: value, ids: ids}
	return e.encode()
}

// removeFromEntry is PHP remove_id_from_entry: when path exists, its field
// is a non-empty string and its key equals key, drop id; unlink the file when
// no id remains (unlink errors ignored), else rewrite it with its own field,
// key and stored value.
func removeFromEntry(path, key, id string) error {
	obj, ids, err := readEntry(path)
	if err != nil || obj == nil {
		return err
	}
	field, _ := lookupString(obj, "field")
	if field == "" {
		return nil
	}
	if k, ok := lookupString(obj, "key"); !ok || k != key {
		return nil
	}
	kept := ids[:0]
	for _, x := range ids {
		if x != id {
			kept = append(kept, x)
		}
	}
	kept = sortedUnique(kept)
	if len(kept) == 0 {
		_ = fsutil.Remove(path)
		return nil
	}
	value, _ := obj.Lookup("value")
	e := entry{field: field, key: key, value: value, ids: kept}
	return e.write(path)
}
