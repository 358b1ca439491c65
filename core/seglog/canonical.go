package seglog

import (
	"unsafe"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// Records view fast path. A put line whose data is already in the exact
// form storh writes for what PHP reads from it (docs/format/segmentedlog.md §2.3, §2.5) renders to
// records.ndjson as `{"id":"<id>","data":` + the raw data bytes + "}\n",
// without decoding. canonicalData decides that conservatively: anything
// it is unsure of goes the decode/encode way.

// recordPrefix is what a records.ndjson line starts with; the canonical
// put's payload starts with putPrefix instead and has no "\n".
const recordPrefix = `{"id":"`

// recordLineDelta is len(payload) - len(records line) for a canonical put.
const recordLineDelta = len(putPrefix) - len(recordPrefix) - 1

// validIDBytes is uuidv7.Valid of a raw id without copying it.
func validIDBytes(id []byte) bool {
	if len(id) != idLen {
		return false
	}
	return uuidv7.Valid(unsafe.String(&id[0], len(id))) // Valid keeps no reference
}

// recordLineLen is the records.ndjson line length of a replayed line when
// its bytes alone decide it: a fast-path put (data != nil) framed without
// CR, with a valid id and canonical data. payloadLen is the line's
// payload length.
func recordLineLen(c *canonChecker, line, id, data []byte, payloadLen int) (int64, bool) {
	if data == nil || !validIDBytes(id) || !c.check(data) {
		return 0, false
	}
	n := len(line)
	if line[n-1] == '\n' {
		n--
	}
	if n == 0 || line[n-1] != '}' {
		return 0, false
	}
	return int64(payloadLen - recordLineDelta), true
}

// appendCanonicalRecord appends the records.ndjson line of a canonical
// put (id valid, data canonical).
func appendCanonicalRecord(dst, id, data []byte) []byte {
	dst = append(dst, recordPrefix...)
	dst = append(dst, id...)
	dst = append(dst, dataInfix...)
	dst = append(dst, data...)
	return append(dst, '}', '\n')
}

// canonChecker reports whether data is one non-empty JSON object that
// storh's encoder would write back byte for byte after PHP's json_decode
// and the record filter of docs/format/segmentedlog.md §2.5
// (phpjson.IsCanonicalArray restricted to an object, a put's data), with
// its key buffer kept between calls.
type canonChecker struct{ phpjson.CanonicalChecker }

func (c *canonChecker) check(data []byte) bool {
	return len(data) >= 2 && data[0] == '{' && c.IsCanonicalArray(data)
}
