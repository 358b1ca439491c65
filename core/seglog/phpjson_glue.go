package seglog

import "github.com/storhfs/storhfs/core/phpjson"

// The few phpjson entry points the log uses, in one place.

// decodeJSON is json_decode($b, true) with PHP's default depth 512.
func decodeJSON(b []byte) (phpjson.Value, error) { return phpjson.Decode(b) }

// decodeJSONC is Jsonc::decode_object.
func decodeJSONC(b []byte) (phpjson.Value, error) {
	a, err := phpjson.DecodeJSONCObject(b)
	if err != nil {
		return nil, err
	}
	return a, nil
}

func encodeJSON(v phpjson.Value) ([]byte, error) { return phpjson.Encode(v) }

func appendJSON(dst []byte, v phpjson.Value) ([]byte, error) { return phpjson.AppendEncode(dst, v) }

func strictEqual(a, b phpjson.Value) bool { return phpjson.Identical(a, b) }
