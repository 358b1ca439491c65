package queue

import (
	"github.com/OneOfOne/xxhash"

	"storhfs/core/guard"
	"storhfs/core/uuidv7"
)

// Batches frame their event lines in place, in the buffer that is written
// (batchWriter.buf): no per-line scratch JSON, no copy of it into the
// buffer. The bytes are exactly guard.Append(appendEventJSON(...))
// (lines_test.go compares them).

// frameGap is the framing between LEN and the JSON: TAB, 8 hash digits, TAB.
const frameGap = 1 + 8 + 1

// beginLine reserves the framing of a line whose JSON will be appended next,
// guessing that LEN has lenDigits digits; it returns where the JSON starts.
func beginLine(dst []byte, lenDigits int) ([]byte, int) {
	dst = append(dst, "00000000000000000000000000000"[:lenDigits+frameGap]...)
	return dst, len(dst)
}

// endLine frames the JSON dst[jsonStart:] begun with beginLine(lenDigits):
// it moves the JSON if LEN has another number of digits, fills in LEN and
// the XXH32 of the JSON, and appends the LF. It returns LEN's digit count.
func endLine(dst []byte, jsonStart, lenDigits int) ([]byte, int) {
	dst, jsonStart, lenDigits = frameLine(dst, jsonStart, lenDigits)
	putHash(dst[jsonStart-9:jsonStart-1], xxhash.Checksum32(dst[jsonStart:len(dst)-1]))
	return dst, lenDigits
}

// endLineUnhashed is endLine without the hash: its 8 digits stay "00000000"
// until fillHashes writes them.
func endLineUnhashed(dst []byte, jsonStart, lenDigits int) ([]byte, int) {
	dst, _, lenDigits = frameLine(dst, jsonStart, lenDigits)
	return dst, lenDigits
}

// frameLine is endLine but for the hash; it also returns where the JSON
// starts now.
func frameLine(dst []byte, jsonStart, lenDigits int) ([]byte, int, int) {
	n := len(dst) - jsonStart
	lineStart := jsonStart - lenDigits - frameGap
	if d := decimalLen(n); d != lenDigits {
		moved := lineStart + d + frameGap
		if d > lenDigits {
			dst = append(dst, "00000000000000000000"[:d-lenDigits]...)
		}
		copy(dst[moved:], dst[jsonStart:jsonStart+n])
		dst, jsonStart, lenDigits = dst[:moved+n], moved, d
	}
	putUint(dst[lineStart:lineStart+lenDigits], uint64(n))
	dst[lineStart+lenDigits] = '\t'
	dst[jsonStart-1] = '\t'
	return append(dst, '\n'), jsonStart, lenDigits
}

// fillHashes writes the hash of every line in lines, which are whole lines
// framed by endLineUnhashed (or endLine: the hash is rewritten the same).
func fillHashes(lines []byte) {
	for i := 0; i < len(lines); {
		n := 0
		for ; lines[i] != '\t'; i++ {
			n = n*10 + int(lines[i]-'0')
		}
		json := i + 1 + 8 + 1
		putHash(lines[i+1:i+9], xxhash.Checksum32(lines[json:json+n]))
		i = json + n + 1
	}
}

// idLines frames the lines of one batch of id-only events (claim,
// complete, requeue, purge), which share op, done and ts: every line is the
// template with its id and hash replaced. Ids are uuidv7.TextLen bytes
// (every id the state holds was validated); others take the slow path.
type idLines struct {
	op     Op
	done   bool
	ts     int64
	line   []byte // the framed line of a placeholder id
	jsonAt int    // offsets in line
	idAt   int
}

func newIDLines(op Op, done bool, ts int64) *idLines {
	const placeholder = "00000000-0000-7000-8000-000000000000"
	json := appendEventJSON(nil, op, placeholder, done, nil, ts)
	line := guard.Append(nil, json)
	jsonAt := len(line) - 1 - len(json)
	return &idLines{op: op, done: done, ts: ts, line: line, jsonAt: jsonAt, idAt: jsonAt + len(`{"op":"`+opNames[op]+`","id":"`)}
}

// add appends the framed line of id.
func (t *idLines) add(dst []byte, id string) []byte {
	if len(id) != uuidv7.TextLen {
		return guard.Append(dst, appendEventJSON(nil, t.op, id, t.done, nil, t.ts))
	}
	start := len(dst)
	dst = append(dst, t.line...)
	line := dst[start:]
	copy(line[t.idAt:t.idAt+uuidv7.TextLen], id)
	putHash(line[t.jsonAt-9:t.jsonAt-1], xxhash.Checksum32(line[t.jsonAt:len(line)-1]))
	return dst
}

// putHash writes h as 8 lowercase hex digits into dst[:8] (guard.AppendHash
// in place).
func putHash(dst []byte, h uint32) {
	const hex = "0123456789abcdef"
	_ = dst[7]
	for i := 7; i >= 0; i-- {
		dst[i] = hex[h&0xf]
		h >>= 4
	}
}

// putUint writes v in decimal into dst, which is exactly decimalLen(v) long.
func putUint(dst []byte, v uint64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte('0' + v%10)
		v /= 10
	}
}

// decimalLen is the number of decimal digits of n >= 0.
func decimalLen(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}
