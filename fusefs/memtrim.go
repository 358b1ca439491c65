package fusefs

import (
	"runtime/debug"
	"sync/atomic"
	"time"
)

// forgetTrim hands the memory of forgotten nodes back to the system. Every
// record the kernel looks up is a node here (a few hundred bytes); when the
// kernel forgets them (memory pressure, drop_caches, a listing of a million
// records long done) the Go runtime frees them at its next collection but
// returns the pages to the system only slowly, and an idle mount may not
// collect for minutes: its resident size would stay at its peak. So once
// trimAfterForgets FORGETs have arrived and then none for quiet, the heap
// is collected and returned at once (debug.FreeOSMemory, a pause of a few
// milliseconds on a small heap).
type forgetTrim struct {
	forgets atomic.Int64 // FORGETs since the last trim
	pending atomic.Bool  // a trim is waiting for the FORGETs to stop
	quiet   time.Duration
	free    func()
}

const (
	trimAfterForgets = 10000
	trimQuiet        = time.Second
)

func newForgetTrim() *forgetTrim {
	return &forgetTrim{quiet: trimQuiet, free: debug.FreeOSMemory}
}

// forgot counts one FORGET (of any node).
func (t *forgetTrim) forgot() {
	if t.forgets.Add(1) >= trimAfterForgets && t.pending.CompareAndSwap(false, true) {
		go t.trimWhenQuiet()
	}
}

func (t *forgetTrim) trimWhenQuiet() {
	for seen := t.forgets.Load(); ; {
		time.Sleep(t.quiet)
		now := t.forgets.Load()
		if now == seen {
			break
		}
		seen = now
	}
	t.forgets.Store(0)
	t.free()
	t.pending.Store(false)
}
