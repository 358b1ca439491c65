package docstore

import (
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// The export fast path (docs/format/docstore.md §10.1): a record file
// {"id":"<id>","data":<D>} followed by "\n" (or nothing), with a valid id
// and D in the form storh's encoder writes, is its own export line.

// canonicalPrefix and canonicalMid frame the id in a canonical record.
const (
	canonicalPrefix = `{"id":"`
	canonicalMid    = `","data":`
)

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
