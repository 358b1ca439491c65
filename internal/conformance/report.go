package conformance

import (
	"fmt"
	"strings"
)

// clipLimit bounds every value printed in a report.
const clipLimit = 1500

// clip returns b as text, cut to n bytes with a note of the full length.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return fmt.Sprintf("%s… (%d bytes)", b[:n], len(b))
}

// describeDiff shows both encoded values and, for long ones, a window
// around the first differing byte.
func describeDiff(got, want []byte) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "  got:  %s\n  want: %s", clip(got, clipLimit), clip(want, clipLimit))
	if len(got) <= clipLimit && len(want) <= clipLimit {
		return sb.String()
	}
	at := 0
	for at < len(got) && at < len(want) && got[at] == want[at] {
		at++
	}
	lo := max(at-80, 0)
	fmt.Fprintf(&sb, "\n  first difference at byte %d:\n  got:  …%s\n  want: …%s",
		at, clip(got[lo:], 240), clip(want[lo:], 240))
	return sb.String()
}
