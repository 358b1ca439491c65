package fusefs

import (
	"fmt"
	"log"
	"strings"
	"sync"
	"syscall"
	"time"
)

// refusalLog reports refused operations (failed commits, refused creates
// and renames): each once to the mount's log, and kept, newest last, for
// MOUNTPOINT/.storhfs/errors, so a user without the mount's terminal (an
// /etc/fstab mount) can read why a write failed. It keeps the last
// maxRefusals lines within maxRefusalBytes, dropping the oldest.
// Reporting takes only the log's own mutex (and the logger's).
type refusalLog struct {
	log     *log.Logger
	changed func() // after each report, when set (mountState.errorsChanged)

	mu    sync.Mutex
	lines []string // newest last; each ends in "\n"
	bytes int      // total length of lines
	last  time.Time
}

const (
	maxRefusals     = 100
	maxRefusalBytes = 64 << 10
)

func newRefusalLog(logger *log.Logger) *refusalLog { return &refusalLog{log: logger} }

// report logs one refusal, "<op> <path below the mount point> <outcome>:
// <reason>", and keeps it as one line prefixed with the time (UTC).
func (r *refusalLog) report(format string, args ...any) {
	text := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	r.log.Print(text)
	now := time.Now()
	line := now.UTC().Format(time.RFC3339) + " " + text + "\n"
	if len(line) > maxRefusalBytes {
		line = line[:maxRefusalBytes-len("...\n")] + "...\n"
	}
	if r.changed != nil {
		defer r.changed()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	r.bytes += len(line)
	drop := 0
	for len(r.lines)-drop > maxRefusals || r.bytes > maxRefusalBytes {
		r.bytes -= len(r.lines[drop])
		drop++
	}
	r.lines = append(r.lines[:0], r.lines[drop:]...)
	r.last = now
}

// contents returns the kept lines, oldest first, and the time of the
// newest (zero when there is none).
func (r *refusalLog) contents() ([]byte, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]byte, 0, r.bytes)
	for _, line := range r.lines {
		out = append(out, line...)
	}
	return out, r.last
}

// commitFailure is why the commit of a write handle's unchanged buffer
// failed, and whether that was reported yet.
type commitFailure struct {
	errno    syscall.Errno
	reason   string
	reported bool
	content  bool // content was refused (not an empty or never-written new record)
}

// reasonNothingWritten is the refusal of a record never given content.
const reasonNothingWritten = "nothing written; an empty file is not a record, nothing stored"

// reportFailure reports a failed commit of record id: "rejected" for
// refused content (EINVAL), else "failed (<errno>)".
func (c *collectionNode) reportFailure(id string, errno syscall.Errno, reason string) {
	outcome := "rejected"
	if errno != syscall.EINVAL {
		outcome = fmt.Sprintf("failed (%v)", errno)
	}
	c.m.refusals.report("commit %s %s: %s", childRel(c.rel, id+recordExt), outcome, reason)
}

// failureReason is the text of a commit error: the store's message
// without the leading "<id>: " it carries.
func failureReason(id string, err error) string {
	return strings.TrimPrefix(err.Error(), id+": ")
}
