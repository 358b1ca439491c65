package fusefs

import (
	"context"
	"log"
	"log/slog"
	"os"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
)

// mountState is shared by every node of one mount.
type mountState struct {
	catalog    Catalog
	readOnly   bool
	log        *log.Logger  // warnings and errors
	events     *slog.Logger // mounts, unmounts and commits (info); never nil
	mountpoint string       // for the log; "" until mounted
	budget     *memBudget   // write buffers, scratch files and commits together

	scratchSeq atomic.Uint64  // last scratch inode counter handed out
	recordGen  atomic.Uint64  // last generation of a record node (recordversion.go)
	nodeCap    *recordNodeCap // bounds the record nodes the kernel holds (nodecap.go); nil: no bound
	runNotify  func(func())   // runs kernel notifications; nil: the notifier (tests replace it)
	notifier   notifier       // sends kernel notifications, one at a time, outside requests
	viewPages  notifier       // drops pages of views before they report a growth (dropPages)
	self       selfChanges    // record files this mount just changed (for the watcher)
	refusals   *refusalLog    // failed commits and refused names, for the log and .storhfs/errors
	symlinks   symlinkLog     // symlinks under ROOT refused, each reported once
	started    time.Time      // when the mount state was made (times of .storhfs)

	// noOpen: the kernel sends no OPEN (a read-only mount; rawfs.go
	// mountFS.Open), so files are read by node, with no handle.
	noOpen bool
	// writtenNodes counts the nodes with a node writer, in every
	// collection (nodewrites.go): while there is none, a FLUSH without a
	// handle has nothing to commit (mountFS.Flush).
	writtenNodes atomic.Int64
	// coverage: the collections whose records the kernel may cache long.
	coverage watchCoverage
	// outsideChanges counts record events the watcher received; a stat
	// taken ahead (statahead.go) is not used once it moved.
	outsideChanges atomic.Uint64
	// viewGen numbers the nodes of COLL/.all.ndjson; exportSizes keeps
	// their measured sizes across nodes (allfile.go).
	viewGen     atomic.Uint64
	exportSizes exportSizes

	mu     sync.Mutex
	errors *fs.Inode               // .storhfs/errors, once looked up (errorsInode)
	stores map[string]*storeSlot   // collections by rel path
	logs   map[string]*logSource   // log views by directory on disk
	queues map[string]*queueSource // queue views by directory on disk
	closed bool
}

// storeSlot holds one collection's store. Opening (which may sweep the
// whole collection) happens under the slot's own mutex, not the mount's.
type storeSlot struct {
	mu     sync.Mutex
	s      RecordStore // nil until opened
	closed bool        // forgotten or unmounted: never (re)open
}

func newMountState(c Catalog, readOnly bool, logger *log.Logger, maxBuffer int64) *mountState {
	refusals := newRefusalLog(logger)
	return &mountState{
		catalog: c, readOnly: readOnly, noOpen: readOnly, log: logger, events: slog.New(slog.DiscardHandler), budget: newMemBudget(maxBuffer, c.Path(""), logger),
		refusals: refusals, symlinks: symlinkLog{refusals: refusals}, started: time.Now(),
		stores: map[string]*storeSlot{}, logs: map[string]*logSource{}, queues: map[string]*queueSource{},
	}
}

// store returns the open store of collection rel, opening it on first use.
func (m *mountState) store(rel string) (RecordStore, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, os.ErrClosed
	}
	slot, ok := m.stores[rel]
	if !ok {
		slot = &storeSlot{}
		m.stores[rel] = slot
	}
	m.mu.Unlock()

	slot.mu.Lock()
	defer slot.mu.Unlock()
	if slot.closed {
		return nil, os.ErrClosed
	}
	if slot.s == nil {
		s, err := m.catalog.OpenDocStore(rel, m.readOnly)
		if err != nil {
			return nil, err
		}
		slot.s = s
	}
	return slot.s, nil
}

// forget closes and drops the store of rel (after rmdir).
func (m *mountState) forget(rel string) {
	m.mu.Lock()
	slot, ok := m.stores[rel]
	delete(m.stores, rel)
	m.mu.Unlock()
	if ok {
		m.closeSlot(rel, slot)
	}
}

func (m *mountState) closeSlot(rel string, slot *storeSlot) {
	slot.mu.Lock()
	defer slot.mu.Unlock()
	slot.closed = true
	if slot.s == nil {
		return
	}
	if err := slot.s.Close(); err != nil {
		m.log.Printf("close %s: %v", rel, err)
	}
	slot.s = nil
}

// closeAll closes every open store; called once the mount is gone.
func (m *mountState) closeAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for rel, slot := range m.stores {
		m.closeSlot(rel, slot)
	}
	m.stores = map[string]*storeSlot{}
	for _, l := range m.logs {
		l.cache.drop()
	}
	for _, q := range m.queues {
		q.cache.drop()
	}
	if !m.closed && m.mountpoint != "" {
		m.events.Info("unmounted", "mountpoint", m.mountpoint)
	}
	m.closed = true
}

// isClosed reports whether the mount is gone (closeAll ran).
func (m *mountState) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// logSource returns the shared view source of the log directory store
// (one per directory on disk).
func (m *mountState) logSource(store LogStore) *logSource {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.logs[store.Dir()]
	if !ok {
		s = newLogSource(store)
		s.views.byNode = m.noOpen
		s.views.pages = m
		m.logs[store.Dir()] = s
	}
	return s
}

// queueSource returns the shared view source of the queue directory
// store (one per directory on disk).
func (m *mountState) queueSource(store QueueStore) *queueSource {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.queues[store.Dir()]
	if !ok {
		s = newQueueSource(store)
		s.views.byNode = m.noOpen
		s.views.pages = m
		m.queues[store.Dir()] = s
	}
	return s
}

// notify queues a kernel cache notification for the notifier, which sends
// it outside of every FUSE request (notifier.go says why). It never blocks.
func (m *mountState) notify(fn func()) {
	if m.runNotify != nil {
		m.runNotify(fn)
		return
	}
	m.notifier.send(fn)
}

// notifyAndWait runs the notification fn as notify does and waits for it
// to be sent, until ctx ends or for notifyWait at most (collectionNode.dropName
// says when a request may wait for one).
func (m *mountState) notifyAndWait(ctx context.Context, fn func()) {
	if m.runNotify != nil {
		m.runNotify(fn)
		return
	}
	done := make(chan struct{})
	m.notifier.send(func() {
		defer close(done)
		fn()
	})
	select {
	case <-done:
	case <-ctx.Done():
	case <-time.After(notifyWait):
	}
}

// notifyWait bounds notifyAndWait's wait for the kernel to take the
// directory's lock (or a page's).
const notifyWait = 2 * time.Second

// dropPages queues the drop of n's cached pages from offset from on, then
// runs then (pageDropper). Views have a notifier of their own: a request
// on a view waits for its drop (viewFile.awaitPublished), so the drop must
// not queue behind an entry invalidation, which waits for the directory
// lock that such a request, a LOOKUP, holds. A content invalidation waits
// only for READs in flight of those pages.
func (m *mountState) dropPages(n *fs.Inode, from int64, then func()) {
	if m.runNotify != nil { // no kernel (unit tests)
		then()
		return
	}
	m.viewPages.send(func() {
		n.NotifyContent(from, 0)
		then()
	})
}

func childRel(parent, name string) string {
	if parent == "" {
		return name
	}
	return path.Join(parent, name)
}
