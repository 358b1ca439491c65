package seglog

import "sync"

// view is what reading needs: the manifest, the state index built from
// the segments it lists, scan stats, and optionally per-segment read
// limits (a Snapshot reads each segment only up to its valid prefix).
type view struct {
	segDir string
	man    *manifest
	segs   *segTable
	state  *stateIndex
	stats  map[int32]*segStats
	limits map[int32]int64 // nil = read to EOF
	buf    []byte          // scan window (callers serialise use)
	sparse *sparseCache    // parsed idx files of sealed segments
	held   *heldSegments   // a snapshot's open segment files; nil for a Log
}

// sparseCache keeps parsed idx files by name. idx files are written once,
// when their segment is sealed, so an entry stays valid until the name is
// rewritten (invalidate) or the view is rebuilt.
type sparseCache struct {
	mu      sync.Mutex
	entries map[string][]sparseEntry
}

func newSparseCache() *sparseCache { return &sparseCache{entries: map[string][]sparseEntry{}} }

func (c *sparseCache) get(path string) []sparseEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[path]; ok {
		return e
	}
	e := readSparse(path)
	c.entries[path] = e
	return e
}

func (c *sparseCache) invalidate(path string) {
	c.mu.Lock()
	delete(c.entries, path)
	c.mu.Unlock()
}

// readLimit is the byte limit for reading segment seg (-1 = EOF).
func (v *view) readLimit(seg int32) int64 {
	if v.limits == nil {
		return -1
	}
	if n, ok := v.limits[seg]; ok {
		return n
	}
	return -1
}
