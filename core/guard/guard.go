// Package guard is storh's checksummed line framing (the "line guard"),
// shared by the SegmentedLog and Queue engines. Every segment line and
// every queue.log event is
//
//	<LEN> TAB <HASH> TAB <JSON> LF
//
// LEN is the decimal byte length of JSON, HASH the XXH32 (seed 0) of JSON
// as exactly 8 lowercase hex digits, and JSON a single-line document.
//
// Writers produce one canonical form (Append). Readers differ per engine,
// and Rules captures the differences (docs/format/segmentedlog.md §2.4-2.6,
// docs/format/queue.md §2.2):
//
//	                    Queue        SegmentedLog fast   SegmentedLog full
//	missing final LF    Torn         accepted            accepted
//	terminator strip    all CR/LF    one LF, then one CR all CR/LF
//	LEN parse           ASCII digits PHP (int) cast      PHP (int) cast
//
// Faults carry no message: each engine maps them to its own PHP text.
package guard

import (
	"bytes"

	"github.com/OneOfOne/xxhash"
)

// Fault says why a line failed the guard, in PHP's check order.
type Fault uint8

const (
	OK        Fault = iota
	Torn            // no trailing LF (RequireLF only)
	Malformed       // fewer than two TABs, or LEN not 1+ ASCII digits (LenDigits only)
	Corrupt         // LEN differs from len(JSON), or HASH is not the lowercase XXH32 of JSON
)

// Strip says which terminator bytes are removed before splitting.
type Strip uint8

const (
	StripAllCRLF  Strip = iota // every trailing CR and LF byte (PHP rtrim "\r\n")
	StripLFThenCR              // at most one LF, then at most one CR
)

// LenRule says how the LEN field is read.
type LenRule uint8

const (
	// LenDigits: one or more ASCII digits (leading zeros fine, huge values
	// saturate and never match); anything else is Malformed.
	LenDigits LenRule = iota
	// LenPHPIntCast: PHP's lenient (int) cast (see PHPIntCast); never
	// Malformed, a value that does not match is Corrupt.
	LenPHPIntCast
)

// Rules is one reader's validation of the framing.
type Rules struct {
	RequireLF bool // a line not ending in LF is Torn
	Strip     Strip
	Len       LenRule
}

// Queue is the queue.log reader (docs/format/queue.md §2.2 steps 1-4).
func Queue() Rules { return Rules{RequireLF: true, Strip: StripAllCRLF, Len: LenDigits} }

// SegLogFull is SegmentedLog's full decoder (stream, get, verify).
func SegLogFull() Rules { return Rules{Strip: StripAllCRLF, Len: LenPHPIntCast} }

// SegLogFast is SegmentedLog's fast validator (open, recover, compaction).
func SegLogFast() Rules { return Rules{Strip: StripLFThenCR, Len: LenPHPIntCast} }

// Parse checks one raw line (the bytes up to and including the next LF, or
// a file's remainder) and returns its JSON part, a sub-slice of line.
func (r Rules) Parse(line []byte) ([]byte, Fault) {
	if r.RequireLF && (len(line) == 0 || line[len(line)-1] != '\n') {
		return nil, Torn
	}
	if r.Strip == StripLFThenCR {
		line = StripOneLFThenCR(line)
	} else {
		line = StripAll(line)
	}
	return r.Split(line)
}

// Split checks a line whose terminator is already stripped: the first two
// TABs delimit LEN and HASH, the rest (further TABs included) is JSON.
func (r Rules) Split(body []byte) ([]byte, Fault) {
	tab1 := bytes.IndexByte(body, '\t')
	if tab1 < 0 {
		return nil, Malformed
	}
	tab2 := bytes.IndexByte(body[tab1+1:], '\t')
	if tab2 < 0 {
		return nil, Malformed
	}
	lenField := body[:tab1]
	hashField := body[tab1+1 : tab1+1+tab2]
	json := body[tab1+1+tab2+1:]
	var declared int64
	if r.Len == LenDigits {
		d, ok := parseDigits(lenField, len(json))
		if !ok {
			return nil, Malformed
		}
		declared = int64(d)
	} else {
		declared = PHPIntCast(lenField)
	}
	if declared != int64(len(json)) || !HashMatches(hashField, json) {
		return nil, Corrupt
	}
	return json, OK
}

// Append appends the canonical framed line for json (LEN, HASH, json, LF)
// to dst. json must not contain a raw LF.
func Append(dst, json []byte) []byte {
	dst = appendUint(dst, uint64(len(json)))
	dst = append(dst, '\t')
	dst = AppendHash(dst, xxhash.Checksum32(json))
	dst = append(dst, '\t')
	dst = append(dst, json...)
	return append(dst, '\n')
}

// StripAll removes every trailing CR and LF byte.
func StripAll(line []byte) []byte {
	n := len(line)
	for n > 0 && (line[n-1] == '\n' || line[n-1] == '\r') {
		n--
	}
	return line[:n]
}

// StripOneLFThenCR removes at most one trailing LF, then at most one CR.
func StripOneLFThenCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

const hexDigits = "0123456789abcdef"

// AppendHash appends h as 8 lowercase hex digits.
func AppendHash(dst []byte, h uint32) []byte {
	for shift := 28; shift >= 0; shift -= 4 {
		dst = append(dst, hexDigits[(h>>uint(shift))&0xf])
	}
	return dst
}

// HashMatches reports whether field is exactly the 8 lowercase hex digits
// of XXH32(json).
func HashMatches(field, json []byte) bool {
	if len(field) != 8 {
		return false
	}
	h := xxhash.Checksum32(json)
	for i := 0; i < 8; i++ {
		if field[i] != hexDigits[(h>>uint(28-4*i))&0xf] {
			return false
		}
	}
	return true
}

// parseDigits checks that b is one or more ASCII digits and returns its
// value, capped at limit+1 so that huge values cannot overflow.
func parseDigits(b []byte, limit int) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v <= limit {
			v = v*10 + int(c-'0')
		}
	}
	return v, true
}

func appendUint(dst []byte, v uint64) []byte {
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(dst, tmp[i:]...)
}
