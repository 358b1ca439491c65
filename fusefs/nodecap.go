package fusefs

import (
	"slices"
	"sync"
	"weak"
)

// DefaultMaxRecordNodes is how many record nodes a mount gives the kernel
// before it has the oldest forgotten (Config.MaxRecordNodes).
const DefaultMaxRecordNodes = 250_000

// recordNodeCap bounds the memory of record nodes. Every record the kernel
// looks up (a READDIRPLUS entry, a stat, an open) is a node here, and the
// kernel keeps it until memory pressure or drop_caches makes it forget:
// about 600 bytes each with go-fuse's tables, so `ls -l` of a million
// records would hold some 600 MiB. Past limit record nodes given out, the
// kernel's entries of the oldest eighth of them are invalidated
// (NotifyEntry, from the notifier); it then forgets the ones not in use,
// and their nodes go. A pruned name is only looked up again when next
// used: the cost is a LOOKUP, never a wrong answer.
//
// Invariant: given holds at most limit nodes after each add, oldest
// first, each weakly (8 bytes: a node the kernel forgot is not kept
// alive by it). Invalidating the entry of a node no longer current costs
// a lookup at most.
type recordNodeCap struct {
	limit int
	prune func([]weak.Pointer[recordNode]) // invalidates their entries; runs outside requests

	mu    sync.Mutex
	given []weak.Pointer[recordNode]
}

// newRecordNodeCap caps record nodes at limit (none when limit <= 0),
// pruning through m's notifier.
func newRecordNodeCap(limit int, m *mountState) *recordNodeCap {
	if limit <= 0 {
		return nil
	}
	return &recordNodeCap{limit: limit, prune: func(batch []weak.Pointer[recordNode]) {
		m.notify(func() {
			for _, w := range batch {
				if r := w.Value(); r != nil {
					r.c.NotifyEntry(r.id + recordExt)
				}
			}
		})
	}}
}

// added notes a new record node given out.
func (rc *recordNodeCap) added(r *recordNode) {
	if rc == nil {
		return
	}
	rc.mu.Lock()
	rc.given = append(rc.given, weak.Make(r))
	var batch []weak.Pointer[recordNode]
	if len(rc.given) > rc.limit {
		n := len(rc.given) - rc.limit + max(rc.limit/8, 1)
		batch = slices.Clone(rc.given[:n])
		rc.given = rc.given[n:]
	}
	rc.mu.Unlock()
	if batch != nil {
		rc.prune(batch)
	}
}
