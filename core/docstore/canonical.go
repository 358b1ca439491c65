package docstore

import (
	"storhfs/core/phpjson"
	"storhfs/core/uuidv7"
)

// Fast path for record files in the shape this package and PHP write:
// {"id":"<id>","data":<D>} followed by "\n" (or nothing).
//
// Why it is exact: for such content, PHP's first (strict) decode of the
// trimmed text succeeds iff D is a JSON value that decodes on its own with
// one nesting level less (DecodeDepth(D, DefaultDepth-1); whitespace
// around D is allowed in both places), and then yields the object
// {"id": <id>, "data": decode(D)}: two string keys, no duplicates, so the
// object check passes and the record's data is decode(D) when that is an
// array, else the empty array (recordData). The id member equals the
// expected id byte for byte, so checkRecordID's outcome is that of
// uuidv7.Valid(expectID). Anything else (comments, other spacing or member
// order, an escaped id, D not decoding) returns ok=false and the caller
// runs the full PHP reader, which decides the result and the error.

// canonicalPrefix and canonicalMid frame the id in a canonical record.
const (
	canonicalPrefix = `{"id":"`
	canonicalMid    = `","data":`
)

// decodeCanonical returns the data of content when it is a canonical
// record of expectID whose id is valid (ok=true), else ok=false with no
// other effect. expectValid says expectID is already known to be valid.
func decodeCanonical(content []byte, expectID string, expectValid bool) (data *phpjson.Array, ok bool) {
	body, ok := canonicalBody(content, expectID)
	if !ok {
		return nil, false
	}
	if !expectValid && !uuidv7.Valid(expectID) {
		return nil, false // the full reader reports the invalid id
	}
	v, err := phpjson.DecodeDepth(body, phpjson.DefaultDepth-1)
	if err != nil {
		return nil, false
	}
	if a, isArray := v.(*phpjson.Array); isArray {
		return a, true
	}
	return phpjson.NewArray(0), true
}

// canonicalBody returns D of a content {"id":"<expectID>","data":D}[\n].
func canonicalBody(content []byte, expectID string) ([]byte, bool) {
	head := len(canonicalPrefix) + len(expectID) + len(canonicalMid)
	if len(content) > 0 && content[len(content)-1] == '\n' {
		content = content[:len(content)-1]
	}
	if len(content) < head+2 || content[len(content)-1] != '}' {
		return nil, false
	}
	if string(content[:len(canonicalPrefix)]) != canonicalPrefix ||
		string(content[len(canonicalPrefix):len(canonicalPrefix)+len(expectID)]) != expectID ||
		string(content[len(canonicalPrefix)+len(expectID):head]) != canonicalMid {
		return nil, false
	}
	return content[head : len(content)-1], true
}

// canonicalExportLine returns a copy of content, with a "\n" added if it
// has none, when content is a record of id in canonical form: the shape
// above with a valid id and data D that phpjson.IsCanonicalArray accepts,
// so that decoding it gives an array whose encoding is D itself and the
// export line {"id":"<id>","data":<J(data)>}\n is content. Otherwise nil.
func canonicalExportLine(content []byte, id string) []byte {
	body, ok := canonicalBody(content, id)
	if !ok || !uuidv7.Valid(id) || !phpjson.IsCanonicalArray(body) {
		return nil
	}
	line := make([]byte, 0, len(content)+1)
	line = append(line, content...)
	if content[len(content)-1] != '\n' {
		line = append(line, '\n')
	}
	return line
}
