package fusefs

import "time"

// uringExitWait bounds how long an ended mount waits for its io_uring
// threads to finish the requests they hold: the kernel ends those at
// unmount without waiting for them, but the stores must outlive them (a
// commit may wait commitWait for a collection lock).
const uringExitWait = commitWait + 5*time.Second

// awaitUring waits, bounded, for the io_uring threads to end after the
// connection did.
func (mt *Mounted) awaitUring() {
	if mt.uring == nil {
		return
	}
	select {
	case <-mt.uring.Done():
	case <-time.After(uringExitWait):
		mt.state.log.Printf("unmount %s: io_uring threads still answering after %v", mt.Mountpoint, uringExitWait)
	}
}
