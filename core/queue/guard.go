package queue

// Line guard: the framing storh puts around every queue.log event (and every
// SegmentedLog segment line):
//
//	<LEN> TAB <HASH> TAB <JSON> LF
//
// LEN is the decimal byte length of JSON, HASH the XXH32 (seed 0) of JSON as
// 8 lowercase hex digits. This file is engine-neutral on purpose (the guard
// faults carry no message); core/seglog has the same parser and the two are
// meant to be merged into one package.

import (
	"bytes"

	"github.com/OneOfOne/xxhash"
)

// GuardFault says why a line failed the guard, in PHP's check order.
type GuardFault uint8

const (
	GuardOK        GuardFault = iota
	GuardTorn                 // no trailing LF (only possible for a file's last bytes)
	GuardMalformed            // fewer than 3 TAB-separated parts, or LEN not 1+ ASCII digits
	GuardCorrupt              // LEN differs from len(JSON), or HASH is not the lowercase XXH32 of JSON
)

const hexDigits = "0123456789abcdef"

// AppendGuarded appends the framed line for json (LEN, HASH, json, LF) to dst.
// json must be single-line.
func AppendGuarded(dst, json []byte) []byte {
	dst = appendUint(dst, uint64(len(json)))
	dst = append(dst, '\t')
	dst = appendHash(dst, xxhash.Checksum32(json))
	dst = append(dst, '\t')
	dst = append(dst, json...)
	return append(dst, '\n')
}

// ParseGuarded checks one raw line, as PHP fgets returns it (the bytes up to
// and including the next LF, or the remainder of the file), and returns its
// JSON part. Rules (spec queue.md A2.1 steps 1-4): the line must end in LF;
// all trailing CR/LF bytes are stripped; the rest splits on the first two
// TABs (the JSON keeps further TABs); LEN is one or more ASCII digits
// (leading zeros fine, huge values never match); LEN must equal len(JSON)
// and HASH must be the lowercase hex XXH32 of JSON.
func ParseGuarded(line []byte) ([]byte, GuardFault) {
	n := len(line)
	if n == 0 || line[n-1] != '\n' {
		return nil, GuardTorn
	}
	for n > 0 && (line[n-1] == '\n' || line[n-1] == '\r') {
		n--
	}
	line = line[:n]

	tab1 := bytes.IndexByte(line, '\t')
	if tab1 <= 0 {
		return nil, GuardMalformed
	}
	tab2 := bytes.IndexByte(line[tab1+1:], '\t')
	if tab2 < 0 {
		return nil, GuardMalformed
	}
	lenField := line[:tab1]
	hashField := line[tab1+1 : tab1+1+tab2]
	json := line[tab1+1+tab2+1:]

	declared, ok := parseDigits(lenField, len(json))
	if !ok {
		return nil, GuardMalformed
	}
	if declared != len(json) || !hashMatches(hashField, json) {
		return nil, GuardCorrupt
	}
	return json, GuardOK
}

// parseDigits checks that b is one or more ASCII digits and returns its value,
// capped at limit+1 so that huge values cannot overflow (they never match).
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

func hashMatches(field, json []byte) bool {
	if len(field) != 8 {
		return false
	}
	var want [8]byte
	appendHash(want[:0], xxhash.Checksum32(json))
	return string(field) == string(want[:])
}

func appendHash(dst []byte, h uint32) []byte {
	for shift := 28; shift >= 0; shift -= 4 {
		dst = append(dst, hexDigits[(h>>uint(shift))&0xf])
	}
	return dst
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
