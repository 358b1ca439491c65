package fusefs

import (
	"sync"
	"time"
)

// notifier sends the mount's kernel cache invalidations (NotifyEntry,
// NotifyContent), in order, from one goroutine that serves no FUSE request
// and holds no lock of the mount.
//
// Why one goroutine, outside every handler: an invalidation can sleep in
// the kernel on a request the daemon has not answered yet. An entry
// invalidation (fuse_reverse_inval_entry) takes the directory's i_rwsem,
// which a create, unlink, rename or lookup in that directory holds until its
// answer comes; a content invalidation locks page-cache folios, which a
// READ in flight holds. Sent from a handler, it could wait on its own
// request; sent while the process exits, it waits for an answer nobody
// will give, and that thread keeps the process, its /dev/fuse descriptor
// and so the connection alive for good. So:
//   - handlers only queue (send never blocks);
//   - stop, called before a clean unmount, refuses new notifications and
//     waits until none is in the kernel, so the process never exits with one
//     in flight (SIGTERM, Ctrl-C, umount);
//   - a SIGKILL cannot wait for anything: the mount watchdog (cmd/storhfs)
//     aborts the connection when the process dies with a thread stuck.
type notifier struct {
	mu      sync.Mutex
	queue   []func()
	running bool // a loop goroutine exists
	stopped bool
	idle    *sync.Cond // made by stop; signalled when the loop ends
}

// send queues fn; it is dropped once the notifier is stopped.
func (n *notifier) send(fn func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.stopped {
		return
	}
	n.queue = append(n.queue, fn)
	if !n.running {
		n.running = true
		go n.loop()
	}
}

// loop runs queued notifications until the queue is empty, then ends; the
// next send starts a new one (an idle mount has no notifier goroutine).
func (n *notifier) loop() {
	for {
		n.mu.Lock()
		batch := n.queue
		n.queue = nil
		if len(batch) == 0 || n.stopped {
			n.running = false
			n.signalIdle()
			n.mu.Unlock()
			return
		}
		n.mu.Unlock()
		for _, fn := range batch {
			if n.isStopped() {
				break
			}
			fn()
		}
	}
}

func (n *notifier) isStopped() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stopped
}

func (n *notifier) signalIdle() {
	if n.idle != nil {
		n.idle.Broadcast()
	}
}

// stop refuses every later notification, drops the queued ones and waits
// up to limit for the one being sent to return. It reports whether none is
// in flight any more. While the mount still serves requests, a waiting
// notification returns as soon as the request it waits on is answered.
func (n *notifier) stop(limit time.Duration) bool {
	n.mu.Lock()
	n.stopped = true
	n.queue = nil
	if n.idle == nil {
		n.idle = sync.NewCond(&n.mu)
	}
	running := n.running
	n.mu.Unlock()
	if !running {
		return true
	}
	done := make(chan struct{})
	go func() {
		n.mu.Lock()
		for n.running {
			n.idle.Wait()
		}
		n.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(limit):
		return false
	}
}

// drainLimit bounds how long a clean unmount waits for a notification in
// flight (normally microseconds; it waits only on requests being served).
const drainLimit = 3 * time.Second

// stopNotifying is called before a clean unmount and after the mount went
// away: no notification may be in the kernel when the process exits.
func (mt *Mounted) stopNotifying() {
	for _, n := range []*notifier{&mt.state.notifier, &mt.state.viewPages} {
		if !n.stop(drainLimit) {
			mt.state.log.Printf("unmount %s: a kernel notification is still in flight after %v", mt.Mountpoint, drainLimit)
		}
	}
}
