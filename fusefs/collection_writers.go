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
	c.writers[h.id][h] = true
	return h
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
// stored it.
func (c *collectionNode) createdWriter(id string) *writeHandle {
	for _, h := range c.openWriters(id) {
		if h.shown().created {
			return h
		}
	}
	return nil
}

// shownBuffer returns the content a reader of id sees while the store has
// no such record: a copy of a pending or created writer's buffer (nil when
// there is none).
func (c *collectionNode) shownBuffer(id string) (*memBuf, syscall.Errno) {
	for _, h := range c.openWriters(id) {
		if v := h.shown(); v.pending || v.created {
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

func (c *collectionNode) hasWriters(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.writers[id]) > 0
}
