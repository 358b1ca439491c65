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
	"fmt"
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
	for i := 0; i < TextLen; i++ {
		switch i {
		case 8, 13, 18, 23: // the dashes, checked above
		default:
			if hexVal(id[i]) < 0 {
				return false
			}
		}
	}
	return true
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
	h := fmt.Sprintf("%012x", uint64(ms)) + tail // at least 32 hex digits
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
