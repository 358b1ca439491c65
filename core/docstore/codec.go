package docstore

import (
	"errors"

	"github.com/storhfs/storhfs/core/phpjson"
)

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
