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
// Invariant: given holds at most limit entries after each add, oldest
// first. An entry may name a node the kernel already forgot, or a name
// that now stands for a newer node; invalidating it then costs a lookup.
type recordNodeCap struct {
	limit int
	prune func([]givenRecord) // invalidates the entries; runs outside requests

	mu    sync.Mutex
	given []givenRecord
}

// givenRecord is one record entry given to the kernel. The collection is
// held weakly: a collection the kernel forgot, with its listing, must not
// stay in memory because some of its names are still in given.
type givenRecord struct {
	c    weak.Pointer[collectionNode]
	name string
}

// newRecordNodeCap caps record nodes at limit (none when limit <= 0),
// pruning through m's notifier.
func newRecordNodeCap(limit int, m *mountState) *recordNodeCap {
	if limit <= 0 {
		return nil
	}
	return &recordNodeCap{limit: limit, prune: func(batch []givenRecord) {
		m.notify(func() {
			for _, g := range batch {
				if c := g.c.Value(); c != nil {
					c.NotifyEntry(g.name)
				}
			}
		})
	}}
}

// added notes a new record node given out as name in c.
func (rc *recordNodeCap) added(c *collectionNode, name string) {
	if rc == nil {
		return
	}
	rc.mu.Lock()
	rc.given = append(rc.given, givenRecord{c: weak.Make(c), name: name})
	var batch []givenRecord
	if len(rc.given) > rc.limit {
		n := len(rc.given) - rc.limit + max(rc.limit/8, 1)
		batch = slices.Clone(rc.given[:n])
		clear(rc.given[:n]) // the array's front keeps no node alive
		rc.given = rc.given[n:]
	}
	rc.mu.Unlock()
	if batch != nil {
		rc.prune(batch)
	}
}
