package fusefs

import (
	"sync"
	"sync/atomic"
	"time"
)

// fingerprint identifies the state of the files behind a read-only view:
// the (size, mtime, inode) of each of them. Equal fingerprints mean the
// view's content is unchanged.
type fingerprint struct {
	key    string
	mtimes map[string]time.Time  // per file name; "" = the newest of all
	stamps map[string]storedFile // per file, when the source checks files one by one (logSource)
}

func (f fingerprint) mtime(name string) time.Time {
	if t, ok := f.mtimes[name]; ok {
		return t
	}
	return f.mtimes[""]
}

// sharedSnapshot is one engine snapshot (a *logSnapshot or a
// QueueSnapshot) shared by the cache and every open file reading it.
// It is closed when the last holder releases it.
type sharedSnapshot struct {
	fp    fingerprint
	snap  any
	close func() error // nil when the snapshot holds no resource
	refs  atomic.Int32
}

func (s *sharedSnapshot) retain() { s.refs.Add(1) }

func (s *sharedSnapshot) release() {
	if s.refs.Add(-1) == 0 && s.close != nil {
		s.close()
	}
}

// snapshotCache holds the latest snapshot of one log or queue directory,
// keyed by the fingerprint of its files: a stat of the files decides
// whether the (expensive) snapshot is taken again.
type snapshotCache struct {
	fingerprint func() (fingerprint, error)
	// take reads a new snapshot. prev is the one it replaces (nil for the
	// first), held open by the cache until take returns.
	take func(prev any) (snap any, close func() error, err error)

	mu  sync.Mutex
	cur *sharedSnapshot
}

// acquire returns the current snapshot with a reference the caller must
// release. The fingerprint is read before the snapshot is taken, so a
// snapshot is never older than its fingerprint (a newer one only causes
// one more snapshot later).
func (c *snapshotCache) acquire() (*sharedSnapshot, error) {
	fp, err := c.fingerprint()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil && c.cur.fp.key == fp.key {
		c.cur.refs.Add(1)
		return c.cur, nil
	}
	var prev any
	if c.cur != nil {
		prev = c.cur.snap
	}
	snap, closeFn, err := c.take(prev)
	if err != nil {
		return nil, err
	}
	s := &sharedSnapshot{fp: fp, snap: snap, close: closeFn}
	s.refs.Store(2) // the cache's and the caller's
	if c.cur != nil {
		c.cur.release()
	}
	c.cur = s
	return s, nil
}

// current returns the cached snapshot (nil: none yet) with a reference the
// caller must release, unchecked: the caller checks its fingerprint
// against the files it depends on.
func (c *snapshotCache) current() *sharedSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil {
		c.cur.retain()
	}
	return c.cur
}

// drop releases the cache's reference (unmount).
func (c *snapshotCache) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil {
		c.cur.release()
		c.cur = nil
	}
}
