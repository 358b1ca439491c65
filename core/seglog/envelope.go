package seglog

import (
	"slices"
	"unicode/utf8"

	"github.com/storhfs/storhfs/core/phpjson"
)

// envelope is a decoded line payload (docs/format/segmentedlog.md §2.2, §2.4 full decode).
type envelope struct {
	op      opKind
	id      string
	data    phpjson.Value // nil when absent
	hasData bool
}

// decodeEnvelope is PHP's full decode: json_decode (depth 512) must give
// an array whose "id" and "op" are strings. Errors are PHP's texts (JSON
// error texts or ErrNoEnvelope).
func decodeEnvelope(payload []byte) (envelope, error) {
	v, err := phpjson.Decode(payload)
	if err != nil {
		return envelope{}, err
	}
	obj, ok := v.(*phpjson.Array)
	if !ok {
		return envelope{}, ErrNoEnvelope
	}
	idv, _ := obj.Lookup("id")
	opv, _ := obj.Lookup("op")
	id, ok1 := idv.(string)
	op, ok2 := opv.(string)
	if !ok1 || !ok2 {
		return envelope{}, ErrNoEnvelope
	}
	data, hasData := obj.Lookup("data")
	return envelope{op: opOf(op), id: id, data: data, hasData: hasData}, nil
}

// decodeCanonicalPut is decodeEnvelope for a payload fastEnvelope
// recognised as a put: only the data JSON is decoded (one level less deep
// allowed, the envelope being the first). ok is false when the full decode
// must decide: an id that is not a plain UTF-8 JSON string body, or data
// that is not exactly one JSON value (e.g. `{},"data":1`, where the
// envelope's last "data" key wins).
func decodeCanonicalPut(id, data []byte) (envelope, bool) {
	if !plainID(id) || !utf8.Valid(id) {
		return envelope{}, false
	}
	v, err := phpjson.DecodeDepth(data, phpjson.DefaultDepth-1)
	if err != nil {
		return envelope{}, false
	}
	return envelope{op: opPut, id: string(id), data: v, hasData: true}, true
}

// recordData is what PHP makes of a line's data (docs/format/segmentedlog.md §2.5): anything but an
// array reads as empty; an array with int keys keeps only its string keys.
func recordData(v phpjson.Value) *phpjson.Array {
	a, ok := v.(*phpjson.Array)
	if !ok {
		return phpjson.NewArray(0)
	}
	keys := a.Keys()
	if !slices.ContainsFunc(keys, phpjson.Key.IsInt) {
		return a
	}
	out := phpjson.NewArray(len(keys))
	for i, k := range keys {
		if !k.IsInt() {
			out.Set(k, a.Values()[i])
		}
	}
	return out
}
