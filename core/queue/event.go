package queue

import (
	"strconv"

	"github.com/storhfs/storhfs/core/guard"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// Op is a queue.log event type. These five are all PHP knows; writing any
// other op makes PHP truncate the log there (docs/format/queue.md §3.1).
type Op uint8

const (
	OpEnqueue Op = iota + 1
	OpClaim
	OpComplete
	OpRequeue
	OpPurge
)

var opNames = [...]string{OpEnqueue: "enqueue", OpClaim: "claim", OpComplete: "complete", OpRequeue: "requeue", OpPurge: "purge"}

func (o Op) String() string {
	if o >= OpEnqueue && o <= OpPurge {
		return opNames[o]
	}
	return "unknown"
}

func parseOp(s string) (Op, bool) {
	switch s {
	case "enqueue":
		return OpEnqueue, true
	case "claim":
		return OpClaim, true
	case "complete":
		return OpComplete, true
	case "requeue":
		return OpRequeue, true
	case "purge":
		return OpPurge, true
	}
	return 0, false
}

// Event is one decoded queue.log event.
type Event struct {
	Op    Op
	ID    string // exact spelling (ids are case-sensitive identities)
	TS    int64  // valid when HasTS
	HasTS bool   // false when ts is missing or not a JSON integer: replay uses "now"
	Done  bool   // complete: "done" is the JSON literal true
	// Payload (enqueue only) is the payload as claimers see it: PHP's
	// payload_from_value (non-arrays become empty; an array with any int key
	// keeps only its string keys). Never nil for enqueue.
	Payload *phpjson.Array
}

// DecodeEvent decodes the JSON part of a guarded line with PHP's rules
// (docs/format/queue.md §2.2 steps 5-8). Errors carry PHP's messages.
func DecodeEvent(json []byte) (Event, error) {
	v, err := phpjson.Decode(json)
	if err != nil {
		return Event{}, err
	}
	obj, ok := v.(*phpjson.Array)
	if !ok || hasIntKey(obj) {
		return Event{}, ErrNotObject
	}
	opVal, _ := obj.Lookup("op")
	opName, ok := opVal.(string)
	if !ok || opName == "" {
		return Event{}, ErrInvalidEvent
	}
	idVal, _ := obj.Lookup("id")
	id, ok := idVal.(string)
	if !ok || !uuidv7.Valid(id) {
		return Event{}, ErrInvalidEvent
	}
	op, ok := parseOp(opName)
	if !ok {
		return Event{}, &UnsupportedOpError{Op: opName}
	}
	ev := Event{Op: op, ID: id}
	if ts, ok := lookupInt(obj, "ts"); ok {
		ev.TS, ev.HasTS = ts, true
	}
	switch op {
	case OpComplete:
		done, _ := obj.Lookup("done")
		ev.Done = done == true
	case OpEnqueue:
		p, _ := obj.Lookup("payload")
		ev.Payload = NormalizePayload(p)
	}
	return ev, nil
}

func lookupInt(a *phpjson.Array, name string) (int64, bool) {
	v, _ := a.Lookup(name)
	i, ok := v.(int64)
	return i, ok
}

// NormalizePayload is PHP's payload_from_value: what claimers see.
func NormalizePayload(v phpjson.Value) *phpjson.Array {
	a, ok := v.(*phpjson.Array)
	if !ok || a == nil {
		return phpjson.NewArray(0)
	}
	if !hasIntKey(a) {
		return a
	}
	out := phpjson.NewArray(a.Len())
	for i := 0; i < a.Len(); i++ {
		k, val := a.At(i)
		if !k.IsInt() {
			out.Set(k, val)
		}
	}
	return out
}

func hasIntKey(a *phpjson.Array) bool {
	for _, k := range a.Keys() {
		if k.IsInt() {
			return true
		}
	}
	return false
}

// appendEventJSON appends the event object exactly as PHP writes it
// (docs/format/queue.md §3.1): {"op":..,"id":..,["payload":..,|"done":..,]"ts":..}.
// payloadJSON is the encoded payload (enqueue only). ids are valid UUIDv7
// spellings, which need no escaping.
func appendEventJSON(dst []byte, op Op, id string, done bool, payloadJSON []byte, ts int64) []byte {
	dst = append(dst, `{"op":"`...)
	dst = append(dst, opNames[op]...)
	dst = append(dst, `","id":"`...)
	dst = append(dst, id...)
	dst = append(dst, '"')
	switch op {
	case OpEnqueue:
		dst = append(dst, `,"payload":`...)
		dst = append(dst, payloadJSON...)
	case OpComplete:
		if done {
			dst = append(dst, `,"done":true`...)
		} else {
			dst = append(dst, `,"done":false`...)
		}
	}
	dst = append(dst, `,"ts":`...)
	dst = appendInt(dst, ts)
	return append(dst, '}')
}

func appendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

// appendEventLine appends the guarded line of one event; scratch is reused
// for the JSON part and returned for the next call.
func appendEventLine(dst, scratch []byte, op Op, id string, done bool, payloadJSON []byte, ts int64) (line, scratchOut []byte) {
	scratch = appendEventJSON(scratch[:0], op, id, done, payloadJSON, ts)
	return guard.Append(dst, scratch), scratch
}
