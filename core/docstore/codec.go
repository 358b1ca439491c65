package docstore

import (
	"errors"

	"github.com/storhfs/storhfs/core/phpjson"
)

// The phpjson entry points this package uses, in one place.

// decodeStrict is PHP json_decode($b, true) (depth 512).
func decodeStrict(b []byte) (phpjson.Value, error) { return phpjson.Decode(b) }

// appendJSON appends storh's compact json_encode of v.
func appendJSON(dst []byte, v phpjson.Value) ([]byte, error) { return phpjson.AppendEncode(dst, v) }

// decodeObject decodes a record file as PHP's read_jsonc_object does
// (docs/format/docstore.md §2.3 step 2, phpjson.DecodeJSONCObject). Errors carry PHP's texts and
// are ErrInvalidRecord: "JSONC document must decode to an object." or
// "Invalid JSONC storage file: <path>".
func decodeObject(content []byte, path string) (*phpjson.Array, error) {
	obj, err := phpjson.DecodeJSONCObject(content)
	if err == nil {
		return obj, nil
	}
	var jerr *phpjson.JSONCError
	if errors.As(err, &jerr) {
		return nil, wrapError(ErrInvalidRecord, msgInvalidJSONC+path, err)
	}
	if errors.Is(err, phpjson.ErrNotObject) {
		return nil, wrapError(ErrInvalidRecord, msgNotObject, err)
	}
	return nil, wrapError(ErrInvalidRecord, err.Error(), err)
}
