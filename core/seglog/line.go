package seglog

import (
	"bytes"
	"math"
	"strconv"

	"github.com/OneOfOne/xxhash"
)

// Line framing (spec 2.1): "<len>\t<xxh32>\t<json>\n" where <len> is the
// byte length of <json> in decimal and <xxh32> the 8 lowercase hex digits
// of XXH32(json, seed 0).

const hexDigits = "0123456789abcdef"

// AppendLine appends the framed line for payload (with its "\n") to dst.
func AppendLine(dst, payload []byte) []byte {
	dst = strconv.AppendInt(dst, int64(len(payload)), 10)
	dst = append(dst, '\t')
	dst = appendHex8(dst, xxhash.Checksum32(payload))
	dst = append(dst, '\t')
	dst = append(dst, payload...)
	return append(dst, '\n')
}

func appendHex8(dst []byte, v uint32) []byte {
	for shift := 28; shift >= 0; shift -= 4 {
		dst = append(dst, hexDigits[(v>>uint(shift))&0xf])
	}
	return dst
}

// stripFast removes the terminator as PHP's fast validator does: one "\n",
// then one "\r".
func stripFast(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// stripFull removes every trailing "\r" and "\n", as PHP's full decoder does.
func stripFull(line []byte) []byte {
	n := len(line)
	for n > 0 && (line[n-1] == '\n' || line[n-1] == '\r') {
		n--
	}
	return line[:n]
}

// parseFrame checks the framing of a line whose terminator is already
// stripped and returns its JSON payload (a sub-slice of line).
// Errors: ErrMalformedLine (fewer than two TABs), ErrCorruptLine (length or
// checksum mismatch).
func parseFrame(line []byte) ([]byte, error) {
	t1 := bytes.IndexByte(line, '\t')
	if t1 < 0 {
		return nil, ErrMalformedLine
	}
	rest := line[t1+1:]
	t2 := bytes.IndexByte(rest, '\t')
	if t2 < 0 {
		return nil, ErrMalformedLine
	}
	sum := rest[:t2]
	payload := rest[t2+1:]
	if phpIntCast(line[:t1]) != int64(len(payload)) {
		return nil, ErrCorruptLine
	}
	if len(sum) != 8 || !hexEquals(sum, xxhash.Checksum32(payload)) {
		return nil, ErrCorruptLine
	}
	return payload, nil
}

// hexEquals reports whether s is exactly the 8 lowercase hex digits of v.
func hexEquals(s []byte, v uint32) bool {
	for i := 0; i < 8; i++ {
		if s[i] != hexDigits[(v>>uint(28-4*i))&0xf] {
			return false
		}
	}
	return true
}

// phpIntCast is PHP's (int) cast of a string, as far as it matters for
// comparing with a byte length: leading whitespace, a sign, digits, an
// optional fraction and exponent; trailing junk ignored; no number = 0.
// Values that do not fit in int64 give -1 (no payload has that length).
func phpIntCast(s []byte) int64 {
	// Fast path: plain decimal digits, as every writer produces.
	if len(s) > 0 && len(s) <= 18 {
		var v int64
		plain := true
		for _, c := range s {
			if c < '0' || c > '9' {
				plain = false
				break
			}
			v = v*10 + int64(c-'0')
		}
		if plain {
			return v
		}
	}
	i := 0
	for i < len(s) && isPHPSpace(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	isFloat := false
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if digits > 0 || j > i+1 {
			digits += j - i - 1
			isFloat = true
			i = j
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			isFloat = true
			i = j
		}
	}
	num := string(s[start:i])
	if !isFloat {
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return -1
		}
		return v
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || f >= 9.2e18 || f <= -9.2e18 {
		return -1
	}
	return int64(f)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isPHPSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// Envelope prefixes of PHP's canonical lines (spec 2.3, 2.5 fast path).
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
