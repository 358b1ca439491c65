package docindex

import (
	"sort"

	"github.com/storhfs/storhfs/core/phpjson"
)

// EqualityIDsFrom returns the ids EqualityIDs gives for field == v, sorted
// bytewise without duplicates, restricted to those after `after` ("" for
// the first) and cut to at most limit (limit <= 0: all). Paging with after
// set to the last id returned visits every id once. indexed is false when
// field has no definition or a range one. Takes no lock.
//
// On an entry file whose id list has the canonical layout (fixedIDList)
// only the head and the requested ids are read; any other file is read and
// scanned whole, exactly as EqualityIDs does.
func (m *Manager) EqualityIDsFrom(field string, v phpjson.Value, after string, limit int) (ids []string, indexed bool, err error) {
	d, ok, err := m.lookupDefinition(field)
	if err != nil || !ok {
		return nil, false, err
	}
	if !indexable(v) {
		return nil, true, nil
	}
	if d.Range {
		return nil, false, nil
	}
	vk := ValueKey(v)
	ids, err = entryIDsAfter(m.paths.eqFile(field, vk), vk, after, limit)
	return ids, true, err
}

// pageAfter returns the ids of sorted that are > after, at most limit of
// them (limit <= 0: all).
func pageAfter(sorted []string, after string, limit int) []string {
	i := sort.Search(len(sorted), func(i int) bool { return sorted[i] > after })
	page := sorted[i:]
	if limit > 0 && len(page) > limit {
		page = page[:limit]
	}
	return page
}

// entryIDsAfter is pageAfter over the sorted, duplicate-free raw ids of the
// entry file at path (rawEntryIDs), reading as little of the file as its
// layout allows.
func entryIDsAfter(path, key, after string, limit int) ([]string, error) {
	f, err := openEntry(path, true)
	if f == nil {
		return nil, err
	}
	defer f.close()
	var list fixedIDList
	res, err := f.scan(func(text []byte, whole bool) scanResult {
		var res scanResult
		list, res = findFixedIDList(text, key, whole, f.size)
		return res
	})
	if err != nil {
		return nil, readFailure(path, err)
	}
	if res == scanAbsent {
		return nil, nil
	}
	if list.n > 0 {
		ids, ok, err := list.page(f, after, limit)
		if err != nil {
			return nil, readFailure(path, err)
		}
		if ok {
			return ids, nil
		}
	}
	ids, err := rawEntryIDs(path, key)
	return pageAfter(sortedUnique(ids), after, limit), err
}
