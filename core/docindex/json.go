package docindex

import (
	"bytes"
	"errors"

	"github.com/storhfs/storhfs/core/phpjson"
)

// decodeJSONCObject is storh's AtomicFilesystem::read_jsonc_object on
// content already read from path: Jsonc::decode_object, with a JSON error
// of the JSONC pass reported as "Invalid JSONC storage file: <path>".
func decodeJSONCObject(content []byte, path string) (*phpjson.Array, error) {
	obj, err := phpjson.DecodeJSONCObject(content)
	if err == nil {
		return obj, nil
	}
	var je *phpjson.JSONCError
	if errors.As(err, &je) {
		return nil, &PHPError{Msg: "Invalid JSONC storage file: " + path, Err: err}
	}
	return nil, &PHPError{Msg: err.Error(), Err: err}
}

// decodeLineObject is PHP decode_index_line: json_decode(trim(line)); only
// a non-empty array that is not a list counts (ok false otherwise).
func decodeLineObject(line []byte) (*phpjson.Array, bool) {
	v, err := phpjson.Decode(bytes.Trim(line, phpTrimSet))
	if err != nil {
		return nil, false
	}
	a, ok := v.(*phpjson.Array)
	if !ok || a.Len() == 0 || a.IsList() {
		return nil, false
	}
	return a, true
}
