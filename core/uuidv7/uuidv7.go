// Package uuidv7 generates and validates UUIDv7 ids exactly like storh's PHP
// UuidV7 class (docs/format/docstore.md §3).
//
// Text layout (36 bytes, lowercase when generated):
//
//	tttttttt-tttt-7vvv-Vxxx-xxxxxxxxxxxx
//	0       8    13   18   23          36
//
// t = 48-bit unix milliseconds, 7 = version, V = variant (8, 9, a, b).
package uuidv7

import (
	"errors"
	"strconv"
)

// ErrInvalid is PHP's assert_valid failure; its text is compared by the
// conformance results, so it must stay exactly as is.
var ErrInvalid = errors.New("Invalid UUIDv7 value.")

// ErrTimestampRange is returned for a timestamp outside 0 .. 2^48-1.
var ErrTimestampRange = errors.New("UUIDv7 timestamp is outside the 48-bit range.")

// MaxTimestampMs is the largest timestamp a UUIDv7 can carry (2^48-1).
const MaxTimestampMs = 1<<48 - 1

// Valid reports whether id matches, case-insensitively and with a true end
// anchor, ^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$.
func Valid(id string) bool {
	if len(id) != TextLen {
		return false
	}
	if id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' || id[14] != '7' {
		return false
	}
	switch id[19] {
	case '8', '9', 'a', 'b', 'A', 'B':
	default:
		return false
	}
	// Five overlapping 8-byte words cover the 32 hex digits; the bytes of
	// the dashes and the variant (checked above) are masked out.
	const dashAt13 = 0xff << (4 * 8)                                 // id[9:17] byte 4
	const dashesAndVariant = 0xff<<(2*8) | 0xff<<(3*8) | 0xff<<(7*8) // id[16:24] bytes 2, 3, 7
	return hexWord(load8(id, 0), 0) && hexWord(load8(id, 9), dashAt13) &&
		hexWord(load8(id, 16), dashesAndVariant) && hexWord(load8(id, 24), 0) && hexWord(load8(id, 28), 0)
}

// load8 reads s[i:i+8] as a little-endian word (one load on amd64).
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// hexWord reports whether every byte of w outside the bytes set in skip is
// a hex digit of either case. Per byte b < 0x80, b+(0x80-n) sets the high
// bit exactly when b >= n and never carries into the next byte.
func hexWord(w, skip uint64) bool {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	atLeast := func(x uint64, n uint64) uint64 { return (x + ones*(0x80-n)) & high }
	lower := w | ones*0x20
	digit := atLeast(w, '0') &^ atLeast(w, '9'+1)
	letter := atLeast(lower, 'a') &^ atLeast(lower, 'f'+1)
	ok := (digit | letter) &^ (w & high) // a byte >= 0x80 is never hex
	return (ok|skip)&high == high
}

// hexVal returns the value of one hex digit of either case, or -1.
func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// TimestampMs validates id and returns the milliseconds of its first 12 hex
// digits (offsets 0-7 and 9-12, any case).
func TimestampMs(id string) (int64, error) {
	if !Valid(id) {
		return 0, ErrInvalid
	}
	var ts int64
	for i := 0; i < 13; i++ {
		if i == 8 {
			continue
		}
		ts = ts<<4 | int64(hexVal(id[i]))
	}
	return ts, nil
}

// MinForTimestampMs is the smallest lowercase id of millisecond ms
// ("<ts>-7000-8000-000000000000"). Like PHP it does no range check: a
// negative ms renders as 16-digit two's complement and ms >= 2^48 as more
// than 12 digits, and the text is cut into 8-4-4-4-12 from that hex string.
func MinForTimestampMs(ms int64) string {
	return boundFor(ms, "70008000000000000000")
}

// MaxForTimestampMs is the largest lowercase id of millisecond ms
// ("<ts>-7fff-bfff-ffffffffffff"); same range behaviour as MinForTimestampMs.
func MaxForTimestampMs(ms int64) string {
	return boundFor(ms, "7fffbfffffffffffffff")
}

func boundFor(ms int64, tail string) string {
	ts := strconv.FormatUint(uint64(ms), 16)
	for len(ts) < 12 {
		ts = "0" + ts
	}
	h := ts + tail // at least 32 hex digits
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
