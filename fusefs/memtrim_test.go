package fusefs

import (
	"testing"
	"time"
)

// The trim waits for a burst of FORGETs to end, runs once for it, and not
// for a handful.
func TestForgetTrimRunsOnceAfterABurst(t *testing.T) {
	freed := make(chan struct{}, 10)
	trim := &forgetTrim{quiet: 20 * time.Millisecond, free: func() { freed <- struct{}{} }}
	for range trimAfterForgets - 1 {
		trim.forgot()
	}
	select {
	case <-freed:
		t.Fatal("trimmed before trimAfterForgets FORGETs")
	case <-time.After(100 * time.Millisecond):
	}
	for range 3 * trimAfterForgets {
		trim.forgot()
	}
	select {
	case <-freed:
	case <-time.After(10 * time.Second):
		t.Fatal("no trim after a burst of FORGETs")
	}
	select {
	case <-freed:
		t.Fatal("one burst trimmed twice")
	case <-time.After(100 * time.Millisecond):
	}
	if n := trim.forgets.Load(); n != 0 {
		t.Errorf("FORGETs counted after the trim: %d, want 0", n)
	}
}
