package fusefs

import (
	"sync"
	"syscall"
	"time"
)

// requestGate lets a mount end without lying to a writer. While serving,
// every request passes. Once draining (an unmount began), requests that
// start new work (opens, creates, mkdir) are refused, while those that
// finish work already under way (write, flush, fsync, rename, unlink of
// open files' records) still pass, so that the files open at the signal
// can be closed and answered. Once closed, every request that could store
// or change anything is refused before it does anything.
//
// Invariant: after close returns true, no request that changes data is
// running or will run, so the process may exit without a change being
// made whose answer the kernel never gets.
type requestGate struct {
	mu       sync.Mutex
	phase    gatePhase
	inflight int           // changing requests running
	idle     chan struct{} // closed when inflight drops to 0 after close; nil before
}

type gatePhase int

const (
	gateServing gatePhase = iota
	gateDraining
	gateClosed
)

// requestKind says what a request does to the mount's state.
type requestKind int

const (
	startsWork   requestKind = iota // open, create, mkdir, link: refused from draining on
	finishesWork                    // write, flush, fsync, rename, unlink, setattr: refused once closed
)

// errShuttingDown is what refused requests get: "Cannot send after
// transport endpoint shutdown". Nothing was stored by such a request.
const errShuttingDown = syscall.ESHUTDOWN

// enter admits a request of kind k (and then leave must be called) or
// refuses it.
func (g *requestGate) enter(k requestKind) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.phase == gateClosed, g.phase == gateDraining && k == startsWork:
		return false
	}
	g.inflight++
	return true
}

func (g *requestGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inflight--
	if g.inflight == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

// drain refuses new work from now on.
func (g *requestGate) drain() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.phase == gateServing {
		g.phase = gateDraining
	}
}

// close refuses every changing request from now on and waits up to
// timeout for those running to finish; it reports whether they did, and
// how many were still running if not.
func (g *requestGate) close(timeout time.Duration) (running int, done bool) {
	g.mu.Lock()
	g.phase = gateClosed
	if g.inflight == 0 {
		g.mu.Unlock()
		return 0, true
	}
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
	idle := g.idle
	g.mu.Unlock()
	select {
	case <-idle:
		return 0, true
	case <-time.After(timeout):
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.inflight, false
	}
}
