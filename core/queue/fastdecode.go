package queue

import (
	"bytes"

	"storhfs/core/uuidv7"
)

// decodeIDEvent decodes an id-only event (claim, complete, requeue, purge)
// whose JSON is exactly what appendEventJSON writes, without the generic
// decoder: {"op":"<op>","id":"<36>",["done":true|false,]"ts":<int>}. ok is
// false for any other bytes, which DecodeEvent then decides; when ok, the
// event is the one DecodeEvent returns (fastdecode_test.go fuzzes that).
func decodeIDEvent(json []byte) (ev Event, ok bool) {
	rest, ok := bytes.CutPrefix(json, []byte(`{"op":"`))
	if !ok {
		return Event{}, false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return Event{}, false
	}
	switch string(rest[:end]) {
	case "claim":
		ev.Op = OpClaim
	case "complete":
		ev.Op = OpComplete
	case "requeue":
		ev.Op = OpRequeue
	case "purge":
		ev.Op = OpPurge
	default:
		return Event{}, false
	}
	if rest, ok = bytes.CutPrefix(rest[end:], []byte(`","id":"`)); !ok || len(rest) < uuidv7.TextLen+1 || rest[uuidv7.TextLen] != '"' {
		return Event{}, false
	}
	id := rest[:uuidv7.TextLen]
	rest = rest[uuidv7.TextLen+1:]
	if ev.Op == OpComplete {
		if after, found := bytes.CutPrefix(rest, []byte(`,"done":true`)); found {
			ev.Done, rest = true, after
		} else if rest, ok = bytes.CutPrefix(rest, []byte(`,"done":false`)); !ok {
			return Event{}, false
		}
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"ts":`)); !ok {
		return Event{}, false
	}
	if ev.TS, ok = parseSmallJSONInt(rest[:max(len(rest)-1, 0)]); !ok || rest[len(rest)-1] != '}' {
		return Event{}, false
	}
	ev.ID = string(id)
	if !uuidv7.Valid(ev.ID) {
		return Event{}, false
	}
	ev.HasTS = true
	return ev, true
}

// parseSmallJSONInt parses b when it is a JSON integer of at most 18
// digits (so it fits int64): 0, or an optional minus and no leading zero.
func parseSmallJSONInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 || (b[0] == '0' && (len(b) > 1 || neg)) {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}
