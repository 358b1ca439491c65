package fusefs

import (
	"os"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// How a view node tells the kernel it grew.
//
// Invariant (no stale last page): the kernel learns a longer size of a
// node only after it dropped every page it holds from the old end's page
// on. A page read while the view ended inside it is zero-filled past that
// end. Were the new size reported at once, the kernel would write i_size
// before it drops pages (fuse_change_attributes), and a reader that found
// the old page (filemap_read takes i_size after it found its pages; a
// reader woken by the READ that filled the page looks it up again first)
// would copy its zeros up to the new end.
//
// So a growth (grow):
//  1. moves cur: every READ from then on serves the longer snapshot (a
//     handle follows the node as soon as a read goes past its own
//     snapshot's end);
//  2. drops the node's pages from the old end's page on (viewNodes.pages,
//     outside every request; the drop waits for READs of those pages in
//     flight, served from the older snapshot);
//  3. moves st, what the node reports (publish).
//
// Requests that report the node wait for 3 (awaitPublished, reportMoved),
// so a stat or an open after an append still sees it.
//
// The drop also makes the kernel discard the attributes of every reply in
// flight for the node (fuse_reverse_inval_inode raises attr_version), the
// request's own included; it marks them invalid, so the next stat or read
// past the kernel's size asks again. Were each GETATTR to move the node,
// a view appended to faster than it is stat-ed would never get a size
// through (tail -f would stall). So once a growth is published, GETATTRs
// report st without moving the node until one reply met no drop
// (kernelLags, reportMoved): under steady appends every other GETATTR
// carries the size on.
//
// Left: a reader that found the old page before the drop and is then
// held off its CPU between finding it and taking i_size, for as long as
// the drop, the publication and the next GETATTR's round trip take,
// still copies zeros. The kernel gives a FUSE file system no way to grow
// a file atomically with its cached pages.
type growth struct {
	// published is closed once st is cur's; nil when it is. Drops run in
	// order, so it is non-nil exactly while a drop is unfinished.
	published chan struct{}
	drops     uint64 // drops started
	lags      bool   // a growth was published and no reply met no drop since
}

// publishWait bounds how long a request waits for a growth of its node to
// be published: the drop before it waits only for READs in flight.
const publishWait = time.Second

// pageSize is the kernel's page size: a drop starts at the page holding
// the old end.
var pageSize = int64(os.Getpagesize())

// grow moves the node from cur to latest, which extends it, and publishes
// latest once the kernel dropped cur's last page (see above). Called with
// refreshMu held; cur's reference passes to grow.
func (v *viewFile) grow(cur, latest viewSnap) {
	done := make(chan struct{})
	pages := v.src.nodes().pages
	v.mu.Lock()
	v.cur, v.growth.published = latest, done
	if pages != nil {
		v.growth.drops++
	}
	shared := v.shared
	v.mu.Unlock()
	oldEnd := cur.stat().size
	cur.release()
	if shared != nil {
		// It serves every open file, for as long as the node lives: it
		// must not hold on to the older snapshot (its files, its memory).
		shared.catchUp()
	}
	st := latest.stat()
	if pages == nil { // no kernel, no pages
		v.publish(st, done, false)
		return
	}
	pages.dropPages(&v.Inode, oldEnd&^(pageSize-1), func() { v.publish(st, done, true) })
}

// publish makes st, a snapshot reads already serve, the one the node
// reports, and wakes the requests waiting for it; dropped: after a drop.
func (v *viewFile) publish(st viewStat, done chan struct{}, dropped bool) {
	v.mu.Lock()
	v.st = st
	if dropped {
		v.growth.lags = true
	}
	if v.growth.published == done {
		v.growth.published = nil
	}
	v.mu.Unlock()
	close(done)
}

// awaitPublished waits, up to publishWait, until the node reports the
// snapshot its reads serve.
func (v *viewFile) awaitPublished() {
	v.mu.Lock()
	done := v.growth.published
	v.mu.Unlock()
	if done == nil {
		return
	}
	timer := time.NewTimer(publishWait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
}

// reportMoved reports the node into out once move (which may grow it)
// succeeded and what it moved to is published; false when move failed.
// A reply no drop met goes through to the kernel: the node may then move
// again (lags).
func (v *viewFile) reportMoved(move func() bool, out *fuse.Attr) bool {
	v.mu.Lock()
	drops, busy := v.growth.drops, v.growth.published != nil
	v.mu.Unlock()
	if !move() {
		return false
	}
	v.awaitPublished()
	v.report(out)
	v.mu.Lock()
	defer v.mu.Unlock()
	if !busy && drops == v.growth.drops {
		v.growth.lags = false
	}
	return true
}

// kernelLags: the kernel may not hold the published size yet.
func (v *viewFile) kernelLags() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.growth.lags
}
