// The registry of open write handles, by record id.

package fusefs

import (
	"syscall"
)

// registerWriterLocked publishes a fully initialised write handle (call
// under c.mu).
func (c *collectionNode) registerWriterLocked(h *writeHandle) *writeHandle {
	h.buf.budget = c.m.budget
	if c.writers == nil {
		c.writers = map[string]map[*writeHandle]bool{}
	}
	if c.writers[h.id] == nil {
		c.writers[h.id] = map[*writeHandle]bool{}
	}
	h.publishLocked() // not yet shared: no other goroutine holds h.mu
	c.writers[h.id][h] = true
	return h
}

// holdingLocked reports whether an open write handle holds record id's
// name (handleView.holds); one whose new content was refused does not,
// although it stays registered until its RELEASE, which the kernel sends
// after close(2) returned (call under c.mu).
func (c *collectionNode) holdingLocked(id string) bool {
	for h := range c.writers[id] {
		if h.holds.Load() {
			return true
		}
	}
	return false
}

// openWriter registers a new write handle on the existing record id; trunc
// starts it empty and changed (open with O_TRUNC: the mount negotiates
// ATOMIC_O_TRUNC, so the flag arrives with the OPEN and the truncation
// belongs to this handle alone).
func (c *collectionNode) openWriter(id string, s RecordStore, trunc bool) *writeHandle {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.registerWriterLocked(&writeHandle{c: c, store: s, id: id, loaded: trunc, dirty: trunc})
}

func (c *collectionNode) releaseWriter(h *writeHandle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writers[h.id][h] {
		delete(c.writers[h.id], h)
		if len(c.writers[h.id]) == 0 {
			delete(c.writers, h.id)
		}
	}
}

// pendingSize returns the buffer size of an open write handle of id holding
// uncommitted changes that were not rejected.
func (c *collectionNode) pendingSize(id string) (int, bool) {
	for _, h := range c.openWriters(id) {
		if v := h.shown(); v.pending {
			return v.size, true
		}
	}
	return 0, false
}

// createdWriter returns an open handle that created record id and has not
// stored it, one that still holds its name when there is one.
func (c *collectionNode) createdWriter(id string) *writeHandle {
	var created *writeHandle
	for _, h := range c.openWriters(id) {
		if v := h.shown(); v.created && (created == nil || v.holds()) {
			created = h
		}
	}
	return created
}

// shownBuffer returns the content a reader of id sees while the store has
// no such record: a copy of the buffer of a writer that holds its name
// (nil when there is none).
func (c *collectionNode) shownBuffer(id string) (*memBuf, syscall.Errno) {
	for _, h := range c.openWriters(id) {
		if h.shown().holds() {
			return h.snapshot()
		}
	}
	return nil, 0
}

// openWriters returns the open write handles of id.
func (c *collectionNode) openWriters(id string) []*writeHandle {
	c.mu.Lock()
	defer c.mu.Unlock()
	handles := make([]*writeHandle, 0, len(c.writers[id]))
	for h := range c.writers[id] {
		handles = append(handles, h)
	}
	return handles
}

// holding reports whether an open write handle holds record id's name
// (holdingLocked).
func (c *collectionNode) holding(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.holdingLocked(id)
}
