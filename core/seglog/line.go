package seglog

import "github.com/storhfs/storhfs/core/guard"

// Line framing (docs/format/segmentedlog.md §2.1, §2.4, §2.6) is core/guard's: "<len>\t<xxh32>\t<json>\n".
// PHP's full decoder (stream, get, verify) strips every trailing CR/LF, its
// fast validator (open, recover, compaction) one LF then one CR; both read
// <len> with PHP's (int) cast and accept a final line without LF.

// AppendLine appends the framed line for payload (with its "\n") to dst.
func AppendLine(dst, payload []byte) []byte { return guard.Append(dst, payload) }

// frameFull checks a raw line as the full decoder does and returns its
// JSON payload (a sub-slice of line).
func frameFull(line []byte) ([]byte, error) { return frameError(guard.SegLogFull().Parse(line)) }

// frameFast checks a raw line as the fast validator does.
func frameFast(line []byte) ([]byte, error) { return frameError(guard.SegLogFast().Parse(line)) }

// frameError maps a guard fault to PHP's message: fewer than two TABs is
// ErrMalformedLine, a length or checksum mismatch ErrCorruptLine.
func frameError(payload []byte, f guard.Fault) ([]byte, error) {
	switch f {
	case guard.OK:
		return payload, nil
	case guard.Malformed:
		return nil, ErrMalformedLine
	default:
		return nil, ErrCorruptLine
	}
}

// Envelope prefixes of PHP's canonical lines (docs/format/segmentedlog.md §2.2, §2.4 fast path).
const (
	putPrefix    = `{"op":"put","id":"`
	deletePrefix = `{"op":"delete","id":"`
	dataInfix    = `","data":`
	idLen        = 36
	// deletePayloadLen is len(`{"op":"delete","id":"<36>"}`).
	deletePayloadLen = len(deletePrefix) + idLen + 2
)

// Op kinds of an envelope.
type opKind uint8

const (
	opPut    opKind = iota + 1
	opDelete        // "delete": a tombstone
	opOther         // any other op string: makes the id live, never yielded
)

func opOf(op string) opKind {
	switch op {
	case "put":
		return opPut
	case "delete":
		return opDelete
	}
	return opOther
}

// fastEnvelope is PHP's fast path: a canonical put or delete recognised
// by its bytes, without parsing JSON or validating the id. ok is false when
// the full decode must decide. For a put, data is the raw data JSON.
func fastEnvelope(payload []byte) (op opKind, id, data []byte, ok bool) {
	if len(payload) >= len(putPrefix)+idLen+len(dataInfix)+1 &&
		string(payload[:len(putPrefix)]) == putPrefix &&
		string(payload[len(putPrefix)+idLen:len(putPrefix)+idLen+len(dataInfix)]) == dataInfix &&
		payload[len(payload)-1] == '}' {
		id = payload[len(putPrefix) : len(putPrefix)+idLen]
		data = payload[len(putPrefix)+idLen+len(dataInfix) : len(payload)-1]
		return opPut, id, data, true
	}
	if len(payload) == deletePayloadLen &&
		string(payload[:len(deletePrefix)]) == deletePrefix &&
		payload[deletePayloadLen-2] == '"' && payload[deletePayloadLen-1] == '}' {
		return opDelete, payload[len(deletePrefix) : len(deletePrefix)+idLen], nil, true
	}
	return 0, nil, nil, false
}
