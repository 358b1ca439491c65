package fusefs

import (
	"context"
	"log"
	"strings"
	"syscall"
	"testing"

	"github.com/storhfs/storhfs/internal/lockedbuf"
)

// logLines splits what a logger wrote into b into its lines.
func logLines(b *lockedbuf.Buffer) []string {
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// The kept refusals are bounded by count and by bytes, newest last, and
// every report is also one line of the mount's log.
func TestRefusalLogIsBounded(t *testing.T) {
	var logged lockedbuf.Buffer
	r := newRefusalLog(log.New(&logged, "", 0))
	for i := 0; i < maxRefusals+50; i++ {
		r.report("commit pages/%03d.jsonc rejected: %s", i, "bad")
	}
	data, last := r.contents()
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != maxRefusals || last.IsZero() {
		t.Fatalf("kept %d lines (last %v), want %d", len(lines), last, maxRefusals)
	}
	if !strings.Contains(lines[0], "pages/050.jsonc rejected: bad") || !strings.Contains(lines[len(lines)-1], "pages/149.jsonc rejected: bad") {
		t.Errorf("kept from %q to %q, want the newest, oldest first", lines[0], lines[len(lines)-1])
	}
	if got := len(logLines(&logged)); got != maxRefusals+50 {
		t.Errorf("%d log lines, want one per report", got)
	}

	long := strings.Repeat("x", 10<<10)
	for i := 0; i < 20; i++ {
		r.report("commit %s failed (%v): %s", "pages/long.jsonc", syscall.ENOSPC, long)
	}
	data, _ = r.contents()
	if len(data) > maxRefusalBytes || !strings.HasSuffix(string(data), long+"\n") {
		t.Errorf("kept %d bytes (limit %d), newest last: %v", len(data), maxRefusalBytes, strings.HasSuffix(string(data), long+"\n"))
	}
	r.report("commit %s rejected: %s", "pages/x.jsonc", "two\nlines")
	if data, _ := r.contents(); !strings.HasSuffix(string(data), "rejected: two lines\n") {
		t.Errorf("a reason with a newline spans lines: %q", data[len(data)-40:])
	}
}

// reportingCollection is a quiet test collection whose log is returned.
func reportingCollection(t *testing.T, s RecordStore) (*collectionNode, *lockedbuf.Buffer) {
	c := quietCollection(s)
	var logged lockedbuf.Buffer
	c.m.refusals = newRefusalLog(log.New(&logged, "", 0))
	return c, &logged
}

func refusals(c *collectionNode) []string {
	data, _ := c.m.refusals.contents()
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// One refusal per failed commit of one buffer: fsync and then close of
// the same content (vim :w) report it once; a new write that fails again
// is a new refusal.
func TestRepeatedFailureOfOneBufferIsReportedOnce(t *testing.T) {
	ctx := context.Background()
	s := newFakeStore(t, idA)
	c, _ := reportingCollection(t, s)
	h := c.openWriter(idA, s, true)
	write(t, h, `{"id":"`+idB+`"}`, 0)
	if errno := h.Fsync(ctx, 0); errno != syscall.EINVAL {
		t.Fatalf("fsync = %v, want EINVAL", errno)
	}
	if errno := h.Flush(ctx); errno != syscall.EINVAL {
		t.Fatalf("flush = %v, want EINVAL", errno)
	}
	if got := refusals(c); len(got) != 1 || !strings.Contains(got[0], "c/"+idA+".jsonc rejected: ") {
		t.Fatalf("refusals after fsync and close = %q, want one", got)
	}
	write(t, h, " ", 100)
	h.Flush(ctx)
	h.Release(ctx)
	if got := refusals(c); len(got) != 2 {
		t.Errorf("a changed buffer refused again: %d refusals, want 2", len(got))
	}
}

// A flush of an empty buffer (a shell redirect closing a duplicate before
// the write) is reported only if the failure stands at release.
func TestEmptyFlushIsReportedOnlyIfItStands(t *testing.T) {
	ctx := context.Background()
	s := newFakeStore(t, idA)
	c, _ := reportingCollection(t, s)

	h, errno := c.createRecord(idB, syscall.O_CREAT|syscall.O_TRUNC)
	if errno != 0 {
		t.Fatal(errno)
	}
	if errno := h.commitBufferReport(); errno != syscall.EINVAL {
		t.Fatalf("flush of a new record before any write = %v, want EINVAL", errno)
	}
	write(t, h, `{"id":"`+idB+`"}`, 0)
	if errno := h.commitBufferReport(); errno != 0 {
		t.Fatalf("flush after the write = %v", errno)
	}
	h.Release(ctx)

	existing := c.openWriter(idA, s, true)
	existing.commitBufferReport()
	write(t, existing, `{"id":"`+idA+`","v":1}`, 0)
	existing.commitBufferReport()
	existing.Release(ctx)
	if got := refusals(c); len(got) != 0 {
		t.Fatalf("successful redirects reported %q", got)
	}

	touched, _ := c.createRecord(idB[:len(idB)-1]+"c", syscall.O_CREAT)
	touched.commitBufferReport()
	if got := refusals(c); len(got) != 0 {
		t.Fatalf("reported before release: %q", got)
	}
	touched.Release(ctx)
	if got := refusals(c); len(got) != 1 || !strings.Contains(got[0], reasonNothingWritten) {
		t.Errorf("refusals after a touch of a new record = %q, want the nothing-written one", got)
	}
	truncated := c.openWriter(idA, s, true)
	truncated.commitBufferReport()
	truncated.Release(ctx)
	if got := refusals(c); len(got) != 2 || !strings.Contains(got[1], reasonEmpty) {
		t.Errorf("refusals after truncating a record to nothing = %q", got)
	}
}

// commitBufferReport is a flush without the kernel notifications.
func (h *writeHandle) commitBufferReport() syscall.Errno {
	errno, _ := h.commitBuffer()
	return errno
}

// A failure that is not a refusal names its errno; a refused create names
// the path.
func TestReportedOutcomes(t *testing.T) {
	ctx := context.Background()
	s := newFakeStore(t, idA)
	s.failPuts = syscall.ENOSPC
	c, logged := reportingCollection(t, s)
	h := c.openWriter(idA, s, true)
	write(t, h, `{"id":"`+idA+`","v":1}`, 0)
	if errno := h.commitBufferReport(); errno != syscall.ENOSPC {
		t.Fatalf("commit on a full disk = %v", errno)
	}
	h.Release(ctx)
	if _, _, _, errno := c.Create(ctx, "notes.txt", syscall.O_CREAT, 0o644, nil); errno != syscall.EPERM {
		t.Fatalf("create notes.txt = %v", errno)
	}
	got := refusals(c)
	if len(got) != 2 || !strings.HasSuffix(got[0], " commit c/"+idA+".jsonc failed (no space left on device): no space left on device") ||
		!strings.HasSuffix(got[1], " create c/notes.txt refused: not a record name (<uuidv7>.jsonc) nor a known temporary name") {
		t.Errorf("refusals = %q", got)
	}
	if lines := logLines(logged); len(lines) != 2 || !strings.HasPrefix(lines[1], "create c/notes.txt refused") {
		t.Errorf("log = %q", lines)
	}
}
