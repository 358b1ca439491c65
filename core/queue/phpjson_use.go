package queue

import "github.com/storhfs/storhfs/core/phpjson"

// maxPayloadDepth keeps written events decodable: the event object adds one
// level and PHP reads at most 511 (docs/format/queue.md §3.2, docs/format/phpjson.md §3.3). PHP itself writes
// payloads up to 512 deep and then truncates them (and every later event) on
// the next open; we refuse them instead.
const maxPayloadDepth = 510

// appendPayloadJSON appends storh's json_encode of payload (an empty payload
// is "[]").
func appendPayloadJSON(dst []byte, payload *phpjson.Array) ([]byte, error) {
	if payload == nil || payload.Len() == 0 {
		return append(dst, '[', ']'), nil
	}
	if depthExceeds(payload, maxPayloadDepth) {
		return dst, ErrPayloadTooDeep
	}
	return phpjson.AppendEncode(dst, payload)
}

// depthExceeds reports whether v nests more than limit arrays deep (every
// array counts, empty ones too, as in PHP's parser).
func depthExceeds(v phpjson.Value, limit int) bool {
	a, ok := v.(*phpjson.Array)
	if !ok {
		return false
	}
	if limit <= 0 {
		return true
	}
	for i := 0; i < a.Len(); i++ { // Len: a nil *Array is an empty one
		if _, child := a.At(i); depthExceeds(child, limit-1) {
			return true
		}
	}
	return false
}
