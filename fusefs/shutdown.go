package fusefs

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Shutdown timing. The grace period keeps SIGTERM under a write storm
// within 5 s; a commit is waited for longer, because the process must not
// exit between storing a record and answering its writer.
const (
	// DefaultUnmountGrace is how long open files may keep the mount busy.
	DefaultUnmountGrace = 4 * time.Second
	// commitWait bounds the wait for changes already running (a commit
	// waiting for the collection lock of a PHP writer) once the gate closed.
	commitWait = 10 * time.Second
	// replyWait bounds the wait for the kernel to have every answer.
	replyWait = time.Second
	// replySettle is how long to let answers reach the kernel when the
	// connection's fusectl directory cannot tell (fusectl not mounted).
	replySettle = 200 * time.Millisecond
)

// Unmount ends the mount without lying to a writer: Shutdown with
// DefaultUnmountGrace and no way to cut it short.
func (mt *Mounted) Unmount() error { return mt.Shutdown(context.Background(), DefaultUnmountGrace) }

// Shutdown unmounts and closes every store. New opens are refused at once
// (ESHUTDOWN) while files already open may still be written, flushed and
// closed; the mount is unmounted as soon as none is open, and then every
// request has been answered. If files are still open after grace (or ctx
// is done first, a second Ctrl-C), every change is refused from then on,
// the changes already running are finished, the mount is detached (lazy
// unmount) and Shutdown returns once the kernel has every answer: a
// descriptor still open then fails with ENOTCONN, and nothing it wrote
// after its last successful close or fsync was stored.
func (mt *Mounted) Shutdown(ctx context.Context, grace time.Duration) error {
	mt.gate.drain()
	mt.stopWatching()
	// While requests are still answered, an invalidation in the kernel
	// returns; none may be in flight when the process exits (notifier.go).
	mt.stopNotifying()
	deadline := time.Now().Add(grace)
	var busy error
	for {
		select {
		case <-mt.served: // unmounted from outside meanwhile
			mt.awaitUring()
			mt.state.closeAll()
			return nil
		default:
		}
		// On success every reader loop has returned: all answered.
		if busy = mt.server.Unmount(); busy == nil {
			mt.awaitUring()
			mt.state.closeAll()
			return nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
	}
	return mt.detach(busy)
}

// detach ends a mount whose files are still open: see Shutdown.
func (mt *Mounted) detach(busy error) error {
	log := mt.state.log
	if running, done := mt.gate.close(commitWait); !done {
		log.Printf("unmount %s: %d changes still running after %v; exiting anyway", mt.Mountpoint, running, commitWait)
	}
	lazyErr := mt.lazyUnmount()
	mt.awaitReplies()
	mt.state.closeAll()
	if lazyErr != nil {
		return fmt.Errorf("unmount %s: %v; lazy unmount: %w", mt.Mountpoint, strings.TrimSpace(busy.Error()), lazyErr)
	}
	log.Printf("unmount %s: files were still open after the grace period; detached it (they now fail with ENOTCONN, and their unsaved writes are not stored)", mt.Mountpoint)
	return nil
}

// awaitReplies returns once every request the kernel sent before it was
// called has been answered: when the connection is gone, or fusectl's
// count of requests waiting for an answer reads 0 (then every earlier
// request was answered), or after replyWait. Without fusectl it waits
// replySettle: the gate is closed, so what is left is writing answers.
func (mt *Mounted) awaitReplies() {
	if _, err := mt.conn.Waiting(); !mt.hasConn || err != nil {
		select {
		case <-mt.served:
		case <-time.After(replySettle):
		}
		return
	}
	deadline := time.Now().Add(replyWait)
	for time.Now().Before(deadline) {
		select {
		case <-mt.served:
			return
		default:
		}
		if n, err := mt.conn.Waiting(); err != nil || n == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func (mt *Mounted) lazyUnmount() error {
	if mt.directly {
		if err := syscall.Unmount(mt.Mountpoint, syscall.MNT_DETACH); err == nil {
			return nil
		}
	}
	for _, bin := range []string{"fusermount3", "fusermount"} {
		if path, err := exec.LookPath(bin); err == nil {
			out, err := exec.Command(path, "-u", "-z", mt.Mountpoint).CombinedOutput()
			if err != nil {
				return fmt.Errorf("%s -u -z: %v: %s", bin, err, out)
			}
			return nil
		}
	}
	return fmt.Errorf("no fusermount3 for a lazy unmount")
}
