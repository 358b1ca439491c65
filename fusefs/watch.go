package fusefs

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hanwen/go-fuse/v2/fs"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/shard"
)

// watcher makes changes written under ROOT by other processes visible in
// the mount without waiting for the kernel's cache timeouts. It watches
// (inotify, through fsnotify) the directories whose content the mount
// shows:
//
//	ROOT and namespaces (up to namespaceDepth levels)  new, removed, renamed collections
//	<collection>/ and <collection>/data/               new bucket directories
//	<collection>/data/<bucket>/                        records created, replaced, deleted
//	<log>/, <log>/segments/, <log>/partitions/         manifest rewrites, appends, rolls, new partitions (LogStore.Layout)
//	<queue>/                                           queue.log appends (QueueStore.StateFile)
//
// Events are turned into invalidations (an entry of a directory node, or
// every file of a log or queue folder), coalesced for coalesceDelay, and
// sent to the kernel by the mount's notifier, which holds no lock and runs
// outside every FUSE request (notifier.go).
//
// A DocStore collection takes 2 + 256 watches (one per bucket in use).
// When the kernel refuses a watch (fs.inotify.max_user_watches) the
// directory is logged once and its changes show up when the kernel's 1 s
// entry/attribute caches expire instead.
type watcher struct {
	m    *mountState
	root *fs.Inode
	w    *fsnotify.Watcher

	mu        sync.Mutex
	dirs      map[string]watchedDir // by directory on disk
	pending   map[invalidation]bool
	all       bool // an event overflow: invalidate everything
	wake      chan struct{}
	done      chan struct{}
	stopped   sync.WaitGroup
	closeOnce sync.Once

	// notified is called after each batch of notifications (tests).
	notified func()
	// addWatch adds an inotify watch (w.w.Add; tests make it fail).
	addWatch func(dir string) error
}

// coalesceDelay gathers the burst of events one write makes (temp file,
// rename, fsync; an append's several writes) into one notification.
const coalesceDelay = 5 * time.Millisecond

type dirRole int

const (
	roleNamespace  dirRole = iota // ROOT, a namespace, or a directory that may become one
	roleCollection                // a DocStore collection directory
	roleData                      // <collection>/data
	roleBucket                    // <collection>/data/<bucket>
	roleLog                       // a log directory (manifest.jsonc) or a partitioned log
	roleSegments                  // <log>/segments
	rolePartitions                // <log>/partitions
	roleQueue                     // a queue directory
)

// watchedDir says what a watched directory is and which mount folder
// shows it (mount: its path below the mount point; rel: the catalog path
// for namespaces and collections).
type watchedDir struct {
	role  dirRole
	rel   string
	mount string
	kind  Kind     // roleNamespace: the kind the catalog gave when watched
	log   LogStore // roleLog, roleSegments, rolePartitions: the log directory
	file  string   // roleQueue: the queue's state file
}

// invalidation is one notification: the entry name of the folder at mount
// (name "" = every file of a log or queue folder, recursively).
type invalidation struct {
	mount string
	name  string
	// record is the record file behind name (a bucket's event), checked
	// when sent: the mount's own changes are not sent (selfchanges.go).
	record string
}

func startWatcher(m *mountState, root *fs.Inode) (*watcher, error) {
	w, err := newWatcher(m, root)
	if err != nil {
		return nil, err
	}
	w.start()
	return w, nil
}

// newWatcher makes a watcher that watches nothing yet (start).
func newWatcher(m *mountState, root *fs.Inode) (*watcher, error) {
	fw, err := fsnotify.NewBufferedWatcher(4096)
	if err != nil {
		return nil, err
	}
	w := &watcher{
		m: m, root: root, w: fw,
		dirs: map[string]watchedDir{}, pending: map[invalidation]bool{},
		wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	w.addWatch = fw.Add
	return w, nil
}

// start watches ROOT and serves events until close.
func (w *watcher) start() {
	w.setupChild("", KindNone)
	w.stopped.Add(2)
	go w.readEvents()
	go w.notifyLoop()
}

func (w *watcher) close() {
	w.closeOnce.Do(func() {
		close(w.done)
		w.w.Close()
		w.stopped.Wait()
	})
}

// add watches dir; it reports whether dir is watched.
func (w *watcher) add(dir string, d watchedDir) bool {
	w.mu.Lock()
	_, known := w.dirs[dir]
	w.dirs[dir] = d
	w.mu.Unlock()
	if known {
		return true
	}
	// inotify follows symlinks: a directory that is, or passes through,
	// one is never watched (refusalOf logs it, once).
	err := w.m.refusalOf(dir)
	if err == nil {
		if err = w.addWatch(dir); err != nil {
			w.m.log.Printf("watch %s: %v (outside changes there show up after the 1 s cache timeout)", dir, err)
		}
	}
	if err != nil {
		w.mu.Lock()
		delete(w.dirs, dir)
		w.mu.Unlock()
	}
	return err == nil
}

// forget drops gone (removed or renamed-away) directory path and everything
// watched below it, so a directory recreated at that path is watched again
// and the map does not grow with every directory ever seen. A renamed
// directory's watch would follow its inode elsewhere: it is removed too.
//
// Every watched directory's parent is watched (watches are added top
// down), so when gone is not watched nothing below it is: the common case
// (a record or temp file renamed or removed) costs one map lookup, not a
// pass over every watched directory.
func (w *watcher) forget(gone string) {
	w.mu.Lock()
	if _, watched := w.dirs[gone]; !watched {
		w.mu.Unlock()
		return
	}
	var drop []string
	below := gone + "/"
	for dir := range w.dirs {
		if dir == gone || strings.HasPrefix(dir, below) {
			drop = append(drop, dir)
			delete(w.dirs, dir)
		}
	}
	w.mu.Unlock()
	for _, dir := range drop {
		w.w.Remove(dir) // already gone with a removed directory: error ignored
	}
}

// setupChild watches catalog directory rel according to its kind; old is
// the kind it had when last watched.
func (w *watcher) setupChild(rel string, old Kind) Kind {
	kind := w.m.catalog.Kind(rel)
	dir := w.m.catalog.Path(rel)
	if !isDir(dir) {
		return KindNone
	}
	switch kind {
	case KindDocStore:
		covered := w.add(dir, watchedDir{role: roleCollection, rel: rel, mount: rel})
		covered = w.setupData(shard.DataDir(dir), rel, false) && covered
		covered = covered && localFS(dir) && localFS(shard.DataDir(dir))
		if !covered && w.m.coverage.cacheTimeout(rel) > 0 {
			w.lose(rel, "a directory of it could not be watched")
		}
		w.m.coverage.set(rel, covered)
	case KindLog:
		w.setupLog(w.m.catalog.OpenLog(rel), rel, false)
	case KindQueue:
		w.add(dir, watchedDir{role: roleQueue, rel: rel, mount: rel, file: w.m.catalog.OpenQueue(rel).StateFile()})
	default:
		if strings.Count(rel, "/") >= namespaceDepth {
			return kind
		}
		w.add(dir, watchedDir{role: roleNamespace, rel: rel, mount: rel, kind: kind})
		if kind == KindNamespace || rel == "" || old != kind {
			w.setupSubdirs(rel)
		}
	}
	return kind
}

func (w *watcher) setupSubdirs(rel string) {
	entries, err := readDirNames(w.m.catalog.Path(rel))
	if err != nil {
		return
	}
	for _, name := range entries {
		if !isHidden(name) {
			w.setupChild(childRel(rel, name), KindNone)
		}
	}
}

// setupData watches <collection>/data and its buckets. A bucket found
// after the collection was first watched may already hold records that
// were never announced: announce them (scan). It reports whether every
// directory is watched (true without data/: the collection's watch sees
// it come).
func (w *watcher) setupData(dataDir, rel string, scan bool) bool {
	if !isDir(dataDir) {
		return true
	}
	watched := w.add(dataDir, watchedDir{role: roleData, rel: rel, mount: rel})
	buckets, _ := readDirNames(dataDir)
	for _, b := range buckets {
		watched = w.setupBucket(dataDir+"/"+b, rel, scan) && watched
	}
	return watched
}

func (w *watcher) setupBucket(bucketDir, rel string, scan bool) bool {
	if !isDir(bucketDir) {
		return true
	}
	watched := w.add(bucketDir, watchedDir{role: roleBucket, rel: rel, mount: rel})
	if !scan {
		return watched
	}
	entries, _ := fsutil.ReadDir(bucketDir)
	for _, e := range entries {
		if _, ok := recordID(e.Name()); ok {
			w.m.outsideChanges.Add(1) // a record change, seen late (hidden.go viewStamp)
			w.queue(invalidation{mount: rel, name: e.Name()})
		}
	}
	return watched
}

// isRecordFile reports whether path is a record file in a watched bucket.
func (w *watcher) isRecordFile(path string) bool {
	dir, name := filepath.Split(path)
	if _, ok := recordID(name); !ok {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dirs[strings.TrimSuffix(dir, "/")].role == roleBucket
}

// lose ends the coverage of collection rel, whose changes may now go
// unseen, and drops everything the kernel caches of its records.
func (w *watcher) lose(rel, why string) {
	w.m.coverage.set(rel, false)
	w.m.log.Printf("watch %s: %s; dropped the kernel's cache of its records, which now expires after %v", rel, why, cacheTimeout)
	w.queue(invalidation{mount: rel})
}

// setupLog watches a log directory, its segments and its partitions
// (LogStore.Layout).
func (w *watcher) setupLog(log LogStore, mount string, announce bool) {
	dir, layout := log.Dir(), log.Layout()
	w.add(dir, watchedDir{role: roleLog, mount: mount, log: log})
	if segs := dir + "/" + layout.Segments; isDir(segs) {
		w.add(segs, watchedDir{role: roleSegments, mount: mount, log: log})
	}
	if parts := dir + "/" + layout.Partitions; isDir(parts) {
		w.add(parts, watchedDir{role: rolePartitions, mount: mount, log: log})
		names, _ := readDirNames(parts)
		for _, p := range names {
			if part := log.Partition(p); !isHidden(p) && isDir(part.Dir()) {
				w.setupLog(part, childRel(mount, p), announce)
				if announce {
					w.queue(invalidation{mount: mount, name: p})
				}
			}
		}
	}
	if announce {
		w.queue(invalidation{mount: mount})
	}
}

func (w *watcher) readEvents() {
	defer w.stopped.Done()
	for {
		select {
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case err, ok := <-w.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.m.log.Printf("watch: the kernel's event queue overflowed (fs.inotify.max_queued_events): changes were lost; dropped every entry, attribute and page the kernel caches")
				w.m.outsideChanges.Add(1)
				w.mu.Lock()
				w.all = true
				w.mu.Unlock()
				w.signal()
				continue
			}
			w.m.log.Printf("watch: %v", err)
		case <-w.done:
			return
		}
	}
}

// handle turns one event into invalidations (and new watches).
func (w *watcher) handle(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod && !w.isRecordFile(ev.Name) {
		return // a record's times (touch) are cached long: they count
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		w.forget(ev.Name)
	}
	dir, name := filepath.Split(ev.Name)
	dir = strings.TrimSuffix(dir, "/")
	if strings.HasSuffix(name, ".tmp") {
		return
	}
	w.mu.Lock()
	d, ok := w.dirs[dir]
	w.mu.Unlock()
	if !ok {
		return
	}
	appeared := ev.Has(fsnotify.Create) || ev.Has(fsnotify.Rename) && isDir(ev.Name)
	switch d.role {
	case roleNamespace:
		if isHidden(name) {
			return
		}
		if appeared || ev.Has(fsnotify.Rename) {
			w.setupChild(childRel(d.rel, name), KindNone)
		}
		w.queue(invalidation{mount: d.mount, name: name})
		// The folder itself may have become (or stopped being) a
		// collection or namespace.
		if d.rel != "" {
			if kind := w.setupChild(d.rel, d.kind); kind != d.kind {
				w.queue(invalidation{mount: parentOf(d.rel), name: path.Base(d.rel)})
			}
		}
	case roleCollection:
		if name == shard.DataDirName && appeared && !w.setupData(ev.Name, d.rel, true) {
			w.lose(d.rel, "a directory of data/ could not be watched")
		}
	case roleData:
		if appeared && !w.setupBucket(ev.Name, d.rel, true) {
			w.lose(d.rel, "bucket "+name+" could not be watched")
		}
	case roleBucket:
		if _, ok := recordID(name); ok {
			w.m.outsideChanges.Add(1)
			w.queue(invalidation{mount: d.mount, name: name, record: ev.Name})
		}
	case roleLog:
		switch layout := d.log.Layout(); name {
		case layout.Segments, layout.Partitions:
			if appeared {
				w.setupLog(d.log, d.mount, true)
			}
		case layout.Manifest:
			w.queue(invalidation{mount: d.mount})
			w.queue(invalidation{mount: d.mount, name: recordsView})
			w.queue(invalidation{mount: d.mount, name: segmentsView})
		}
	case roleSegments:
		if d.log.Layout().IsSegment(name) {
			w.queue(invalidation{mount: d.mount})
			w.queue(invalidation{mount: childRel(d.mount, segmentsView), name: name})
		}
	case rolePartitions:
		if !isHidden(name) {
			if appeared {
				w.setupLog(d.log.Partition(name), childRel(d.mount, name), true)
			}
			w.queue(invalidation{mount: d.mount, name: name})
		}
	case roleQueue:
		if name == d.file {
			w.queue(invalidation{mount: d.mount})
		}
	}
}

func (w *watcher) queue(inv invalidation) {
	w.mu.Lock()
	w.pending[inv] = true
	w.mu.Unlock()
	w.signal()
}

func (w *watcher) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// notifyLoop gathers the watcher's invalidations into batches for the
// mount's notifier.
func (w *watcher) notifyLoop() {
	defer w.stopped.Done()
	for {
		select {
		case <-w.wake:
		case <-w.done:
			return
		}
		time.Sleep(coalesceDelay)
		w.mu.Lock()
		batch, all := w.pending, w.all
		w.pending, w.all = map[invalidation]bool{}, false
		w.mu.Unlock()
		w.m.notify(func() {
			if all {
				invalidateTree(w.root)
			}
			for inv := range batch {
				w.send(inv)
			}
			if w.notified != nil {
				w.notified()
			}
		})
	}
}

// send notifies the kernel. Errors are expected and ignored: the kernel
// may not know the entry (ENOENT) or may have forgotten the node.
func (w *watcher) send(inv invalidation) {
	if inv.record != "" {
		// Checked now, after the coalescing delay: the mount notes its
		// change only once the store has returned (after the rename's
		// event).
		id, _ := recordID(inv.name)
		if fi, err := os.Lstat(inv.record); w.m.self.matches(inv.mount, id, fi, err) {
			return // the mount's own change: the kernel knows it already
		}
	}
	node := w.node(inv.mount)
	if node == nil {
		return
	}
	if inv.name == "" {
		invalidateFiles(node)
		return
	}
	if child := node.GetChild(inv.name); child != nil && !isView(child) {
		child.NotifyContent(0, 0)
	}
	node.NotifyEntry(inv.name)
}

// node finds the folder shown at mount path p among the nodes the kernel
// knows; nil when it knows none (nothing is cached then).
func (w *watcher) node(p string) *fs.Inode {
	n := w.root
	if p == "" {
		return n
	}
	for _, part := range strings.Split(p, "/") {
		if n = n.GetChild(part); n == nil {
			return nil
		}
	}
	return n
}

// invalidateFiles drops what the kernel caches of every file below n (a
// log or queue folder whose views changed): their attributes and pages,
// and their entries, so the next open looks the name up and gets the node
// of the new snapshot (viewFile).
func invalidateFiles(n *fs.Inode) {
	for name, child := range n.Children() {
		if !isView(child) {
			child.NotifyContent(0, 0)
		}
		if child.IsDir() {
			invalidateFiles(child)
		} else {
			n.NotifyEntry(name)
		}
	}
}

// invalidateTree drops every entry, attribute and page the kernel caches
// (after lost events), but a view's attributes and pages (isView).
func invalidateTree(n *fs.Inode) {
	for name, child := range n.Children() {
		if child.IsDir() {
			invalidateTree(child)
		}
		if !isView(child) {
			child.NotifyContent(0, 0)
		}
		n.NotifyEntry(name)
	}
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// readDirNames lists the subdirectory names of dir.
func readDirNames(dir string) ([]string, error) {
	entries, err := fsutil.ReadDir(dir)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, err
}
