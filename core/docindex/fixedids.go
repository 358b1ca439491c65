package docindex

import (
	"errors"
	"io"
	"sort"
)

// idSlot is the length of one id in a canonical id list: `"`, a 36-byte
// UUID, `"` and the separator (`,`, or `]` after the last id).
const idSlot = 38 + 1

// fixedIDList is the id list of an entry file laid out as storh writes it
// for n UUIDs (7.4): the raw list start (just past the first ,"ids":[ after
// the key literal) is followed by n slots of idSlot bytes, then `}\n`, and
// the stored count, found before the list, is n. Slot i is then readable at
// a known offset without reading the ids before it.
//
// The layout is a claim made from the head and the file size; every slot
// actually read is checked (quotes and separator in place, no `"` or `]`
// inside the id), and on such slots the raw scan (scanIDs) gives exactly
// these ids. Unread slots are trusted, as the whole index is, to hold the
// sorted ids of 7.4.
type fixedIDList struct {
	start int64 // offset of slot 0
	n     int64 // number of slots; 0: not this layout
}

// findFixedIDList locates the id list in text, a prefix of a file of size
// bytes (all of it when whole). The result has n=0 when the file does not
// claim the fixed layout; res is as for scanIDsStart.
func findFixedIDList(text []byte, key string, whole bool, size int64) (fixedIDList, scanResult) {
	start, res := scanIDsStart(text, key, whole)
	if res != scanFound {
		return fixedIDList{}, res
	}
	n, countAt, res := scanCount(text, key, whole)
	switch {
	case res == scanUndecided:
		return fixedIDList{}, res
	case res != scanFound || countAt >= start || n < 1 || n > size/idSlot:
		return fixedIDList{}, scanFound
	case int64(start)+n*idSlot+int64(len("}\n")) != size:
		return fixedIDList{}, scanFound
	}
	return fixedIDList{start: int64(start), n: n}, scanFound
}

// page returns the ids after `after`, at most limit (<= 0: all), reading
// only the slots it needs. ok=false: a slot read is not in the layout or
// the ids read are not strictly ascending; the caller then scans the
// whole file.
func (l fixedIDList) page(f *entryFile, after string, limit int) (ids []string, ok bool, err error) {
	// first = the first slot whose id is > after, by binary search (every
	// slot holds a non-empty id, so with after == "" it is slot 0).
	var probeErr error
	probeBad := false
	first := int64(sort.Search(int(l.n), func(i int) bool {
		if after == "" || probeErr != nil || probeBad {
			return true
		}
		ids, ok, err := l.read(f, int64(i), 1)
		if err != nil || !ok {
			probeErr, probeBad = err, !ok
			return true
		}
		return ids[0] > after
	}))
	if probeErr != nil || probeBad {
		return nil, false, probeErr
	}
	count := l.n - first
	if limit > 0 && count > int64(limit) {
		count = int64(limit)
	}
	if count == 0 {
		return []string{}, true, nil
	}
	ids, ok, err = l.read(f, first, count)
	if err != nil || !ok || ids[0] <= after {
		return nil, false, err
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			return nil, false, nil
		}
	}
	return ids, true, nil
}

// read returns the ids of slots [from, from+count), ok=false when one of
// them is not in the layout or the file ends early.
func (l fixedIDList) read(f *entryFile, from, count int64) ([]string, bool, error) {
	off := l.start + from*idSlot
	buf, err := f.bytesAt(off, count*idSlot)
	if err != nil || buf == nil {
		return nil, false, err
	}
	text := string(buf) // one allocation; the ids share it
	ids := make([]string, count)
	for j := range ids {
		s := text[j*idSlot : (j+1)*idSlot]
		sep := byte(',')
		if from+int64(j) == l.n-1 {
			sep = ']'
		}
		if s[0] != '"' || s[37] != '"' || s[38] != sep {
			return nil, false, nil
		}
		id := s[1:37]
		for k := 0; k < len(id); k++ {
			if id[k] == '"' || id[k] == ']' {
				return nil, false, nil
			}
		}
		ids[j] = id
	}
	return ids, true, nil
}

// bytesAt returns the n bytes at off, from text when it holds them; nil
// when the file ends before. Errors are the read's own.
func (e *entryFile) bytesAt(off, n int64) ([]byte, error) {
	if off+n <= int64(len(e.text)) {
		return e.text[off : off+n], nil
	}
	buf := make([]byte, n)
	m, err := e.f.ReadAt(buf, off)
	switch {
	case int64(m) == n:
		return buf, nil
	case err == nil || errors.Is(err, io.EOF):
		return nil, nil
	}
	return nil, err
}
