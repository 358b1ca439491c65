package docstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/storhfs/storhfs/core/phpjson"
)

// parseWritable validates content given to PutRaw as the record file of id
// and returns its data. On top of what PHP's reader accepts (parseRecord,
// docs/format/docstore.md §2.3) it requires storh's own shape (docs/format/docstore.md §2.1): exactly the members
// "id" and "data", with data an array (a JSON object, or a list as PHP
// writes for lists and empty data). PHP reads other shapes too, but not as
// written: data that is missing, null, a number, a string or a bool reads
// as empty data, and other members are dropped by PHP's next write of the
// record. A write through the mount must read back as written, so those
// shapes are refused with ErrInvalidRecord and a reason.
//
// Duplicate members are not detected: PHP keeps the last one, and so does
// the decoder, so what is indexed is what PHP reads.
func parseWritable(content []byte, id, path string) (*phpjson.Array, error) {
	obj, err := decodeObject(content, path)
	var jerr *phpjson.JSONCError
	if errors.As(err, &jerr) {
		// PHP's text names the record file, which these bytes are not yet.
		return nil, wrapError(ErrInvalidRecord, "not valid JSONC"+syntaxLine(content)+": "+jerr.Error(), err)
	}
	if err != nil {
		return nil, err
	}
	switch v, ok := obj.Lookup("id"); {
	case !ok:
		return nil, newError(ErrInvalidRecord, `no "id" member; `+shapeHint)
	case kindOf(v) != "a string":
		return nil, newError(ErrInvalidRecord, fmt.Sprintf(`"id" is %s, not a string; %s`, kindOf(v), shapeHint))
	}
	if err := checkRecordID(obj, id, false); err != nil {
		return nil, err
	}
	return writableData(obj)
}

// shapeHint is how a record must look, appended to every shape refusal.
const shapeHint = `a record is {"id":"<its id>","data":{...}}: put fields inside "data"`

// writableData returns the "data" member of a record object whose id was
// checked, or an ErrInvalidRecord naming what is wrong with its shape.
func writableData(obj *phpjson.Array) (*phpjson.Array, error) {
	for _, k := range obj.Keys() {
		if name := k.String(); name != "id" && name != "data" {
			return nil, newError(ErrInvalidRecord, fmt.Sprintf("unexpected top-level member %q; %s", name, shapeHint))
		}
	}
	v, ok := obj.Lookup("data")
	if !ok {
		return nil, newError(ErrInvalidRecord, `no "data" member; `+shapeHint)
	}
	data, ok := v.(*phpjson.Array)
	if !ok {
		return nil, newError(ErrInvalidRecord, fmt.Sprintf(`"data" is %s, not an object or a list; %s`, kindOf(v), shapeHint))
	}
	return data, nil
}

// kindOf names the JSON kind of a non-array value, for messages.
func kindOf(v phpjson.Value) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case string:
		return "a string"
	case *phpjson.Array:
		return "an object or a list"
	}
	return fmt.Sprintf("%T", v)
}

// syntaxLine returns " (line N)", the line of content where Go's JSON
// decoder finds the syntax error once comments and trailing commas are
// stripped (which keeps every line break), or "" when it finds none.
func syntaxLine(content []byte) string {
	stripped := phpjson.StripTrailingCommas(phpjson.StripComments(content))
	var v any
	var serr *json.SyntaxError
	if err := json.Unmarshal(stripped, &v); !errors.As(err, &serr) {
		return ""
	}
	at := min(max(int(serr.Offset)-1, 0), len(stripped))
	return fmt.Sprintf(" (line %d)", 1+bytes.Count(stripped[:at], []byte("\n")))
}
