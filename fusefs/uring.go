package fusefs

import "time"

// uringExitWait bounds how long an ended mount waits for its io_uring
// threads to hand back their last answers.
const uringExitWait = 5 * time.Second

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
