package fusefs

import (
	"testing"
	"time"
)

func TestRequestGatePhases(t *testing.T) {
	var g requestGate
	if !g.enter(startsWork) || !g.enter(finishesWork) {
		t.Fatal("a serving gate refused a request")
	}
	g.leave()
	g.leave()

	g.drain()
	if g.enter(startsWork) {
		t.Error("a draining gate admitted new work")
	}
	if !g.enter(finishesWork) {
		t.Fatal("a draining gate refused work under way")
	}
	// The admitted request is still running: close waits for it.
	left := make(chan struct{})
	go func() {
		time.Sleep(10 * time.Millisecond)
		close(left)
		g.leave()
	}()
	if running, done := g.close(time.Minute); !done || running != 0 {
		t.Fatalf("close = %d running, done %v; want the running request waited for", running, done)
	}
	select {
	case <-left:
	default:
		t.Fatal("close returned before the running request left")
	}
	if g.enter(finishesWork) || g.enter(startsWork) {
		t.Error("a closed gate admitted a request")
	}
	g.drain() // a late drain does not reopen it
	if g.enter(finishesWork) {
		t.Error("drain after close reopened the gate")
	}
}

func TestRequestGateCloseTimesOut(t *testing.T) {
	var g requestGate
	if !g.enter(finishesWork) {
		t.Fatal("refused")
	}
	if running, done := g.close(time.Millisecond); done || running != 1 {
		t.Errorf("close with a request that never leaves = %d running, done %v; want 1, false", running, done)
	}
	g.leave()
	if running, done := g.close(time.Minute); !done || running != 0 {
		t.Errorf("close after it left = %d, %v", running, done)
	}
}
