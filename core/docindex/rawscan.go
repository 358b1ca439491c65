package docindex

import (
	"bytes"
	"strings"

	"github.com/storhfs/storhfs/core/fsutil"
)

// PHP reads equality and compound entry files on its query, count and
// unique-check paths with raw text scans (7.4, ids_from_value_file and
// count_ids_from_value_file): find the first literal "key":"<key>", then the
// first ,"ids":[ (or ,"count":) after it. No JSON decoding takes place.
//
// The scans below run over text, the first bytes of one open file (all of
// it when whole). A first occurrence of a literal that lies entirely inside
// a prefix is the first occurrence in the file, so an answer decided on a
// prefix is exactly the answer on the whole file. decided=false means the
// answer may depend on bytes after text; with whole=true it is always true.

const (
	idsMarker   = `,"ids":[`
	countMarker = `,"count":`
)

// scanResult is the outcome of a raw scan of one entry file.
type scanResult int

const (
	scanUndecided scanResult = iota // needs more of the file
	scanAbsent                      // no key literal: no ids, count 0
	scanFound                       // the answer is set
	scanMalformed                   // "Malformed equality index: <path>"
)

// afterKey returns the offset in text just past the first "key":"<key>".
func afterKey(text []byte, key string, whole bool) (int, scanResult) {
	marker := `"key":"` + key + `"`
	at := bytes.Index(text, []byte(marker))
	switch {
	case at >= 0:
		return at + len(marker), scanFound
	case whole:
		return 0, scanAbsent
	}
	return 0, scanUndecided
}

// scanIDsStart returns the offset of the id list: just past the first
// ,"ids":[ after the key literal.
func scanIDsStart(text []byte, key string, whole bool) (int, scanResult) {
	k, res := afterKey(text, key, whole)
	if res != scanFound {
		return 0, res
	}
	i := bytes.Index(text[k:], []byte(idsMarker))
	switch {
	case i >= 0:
		return k + i + len(idsMarker), scanFound
	case whole:
		return 0, scanMalformed
	}
	return 0, scanUndecided
}

// scanIDs is the raw id list: from the list start up to the next ], empty
// or delimited by quotes, split on "," without unescaping.
func scanIDs(text []byte, key string, whole bool) ([]string, scanResult) {
	start, res := scanIDsStart(text, key, whole)
	if res != scanFound {
		return nil, res
	}
	list := text[start:]
	end := bytes.IndexByte(list, ']')
	switch {
	case end < 0 && whole:
		return nil, scanMalformed
	case end < 0:
		return nil, scanUndecided
	case end == 0:
		return []string{}, scanFound
	case end < 2 || list[0] != '"' || list[end-1] != '"':
		return nil, scanMalformed
	}
	return strings.Split(string(list[1:end-1]), `","`), scanFound
}

// scanCount is the stored count: the decimal digits (no sign) right after
// the first ,"count": after the key literal; an overflowing digit string
// saturates like PHP's (int) cast. countAt is the offset of the marker.
func scanCount(text []byte, key string, whole bool) (n int64, countAt int, res scanResult) {
	k, res := afterKey(text, key, whole)
	if res != scanFound {
		return 0, 0, res
	}
	i := bytes.Index(text[k:], []byte(countMarker))
	if i < 0 {
		if whole {
			return 0, 0, scanMalformed
		}
		return 0, 0, scanUndecided
	}
	countAt = k + i
	digits := text[countAt+len(countMarker):]
	j := 0
	for ; j < len(digits) && digits[j] >= '0' && digits[j] <= '9'; j++ {
		if n > (1<<63-1-9)/10 {
			n = 1<<63 - 1
			continue
		}
		n = n*10 + int64(digits[j]-'0')
	}
	switch {
	case j == len(digits) && !whole:
		return 0, 0, scanUndecided // more digits may follow
	case j == 0:
		return 0, 0, scanMalformed
	}
	return n, countAt, scanFound
}

// rawEntryIDs reads the ids of an equality or compound entry file the way
// PHP's query and unique-check paths do (scanIDs). A missing file has no
// ids, a missing key literal means no ids; a missing ids marker or ] or an
// id list not delimited by quotes is "Malformed equality index: <path>".
func rawEntryIDs(path, key string) ([]string, error) {
	text, err := fsutil.ReadFile(path)
	if err != nil {
		return nil, readFailure(path, err)
	}
	ids, res := scanIDs(text, key, true)
	if res == scanMalformed {
		return nil, errMalformedEquality(path)
	}
	return ids, nil
}

// rawEntryCount is PHP count_ids_from_value_file (scanCount): a missing
// file or key literal counts 0. The count sits near the start of canonical
// files, so usually only their first block is read.
func rawEntryCount(path, key string) (int64, error) {
	f, err := openEntry(path, false)
	if f == nil {
		return 0, err
	}
	defer f.close()
	var n int64
	res, err := f.scan(func(text []byte, whole bool) scanResult {
		var res scanResult
		n, _, res = scanCount(text, key, whole)
		return res
	})
	switch {
	case err != nil:
		return 0, readFailure(path, err)
	case res == scanMalformed:
		return 0, errMalformedEquality(path)
	}
	return n, nil
}
