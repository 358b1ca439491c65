package fsutil

import (
	"errors"

	"golang.org/x/sys/unix"
)

// PIDAlive is storh's liveness test (docs/format/docstore.md §5.5): 1 <= pid <= 0x7fffffff and
// kill(pid, 0) succeeds. Deliberate, documented deviation (stated in
// docs/format/docstore.md §5.5): EPERM (a process of another user) counts as ALIVE, so we never
// delete a live foreign writer's temp files or marker; PHP counts it dead.
func PIDAlive(pid int64) bool {
	if pid < 1 || pid > 0x7fffffff {
		return false
	}
	err := unix.Kill(int(pid), 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// parsePID parses a string of ASCII digits as PHP's (int) cast does,
// saturating at 2^63-1 (which PIDAlive then calls dead). ok is false for an
// empty or non-digit string.
func parsePID(digits string) (pid int64, ok bool) {
	if digits == "" {
		return 0, false
	}
	const max = int64(^uint64(0) >> 1)
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if pid > (max-d)/10 {
			pid = max
			continue
		}
		pid = pid*10 + d
	}
	return pid, true
}
