package fusefs

import (
	"path"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/fsutil"
)

// DefaultPollInterval is how often a mount on shared storage looks for
// other hosts' changes (Config.PollInterval).
const DefaultPollInterval = time.Second

// poller finds the changes other hosts make under a ROOT on shared
// storage, which inotify never reports (it sees only this host's), by
// comparing stat data every interval, and hands them to the watcher's
// invalidation queue (so they reach the kernel through the notifier, never
// from a handler). One goroutine; its state is its own.
//
// What one poll reads, per kind (bounded: an idle collection costs one
// fstat of data/ and one per bucket, whatever its size):
//
//	ROOT, namespaces       the subdirectory names        collections come and go
//	DocStore collection    data/'s names, each bucket's stat; the records of a
//	                       bucket whose stat moved (or was racy: recent)
//	log                    manifest.jsonc, segments/ and partitions/ entries
//	queue                  queue.log
//
// A record replaced by rename (storh's only way of writing one) changes its
// bucket's mtime and ctime; a bucket whose times were recent when read is
// read again next time, so a change within the file system's timestamp
// granularity is not missed (as shard.IDList does). A bucket's record
// stamps are kept only once it changed: the first change of a bucket
// invalidates every name it holds.
type poller struct {
	w        *watcher
	interval time.Duration

	dirs     map[string]pollDir      // by directory on disk
	buckets  map[string]*bucketPoll  // by bucket directory on disk
	dataDirs map[string]*dataDirPoll // by collection data/ on disk
	kinds    map[string]Kind         // by catalog rel path: the kind last seen
	visited  map[string]bool         // what the running poll saw (disk paths, kindKey)
	// keptFDs counts the bucket directories held open, up to maxKeptFDs.
	keptFDs, maxKeptFDs int

	done     chan struct{}
	stopped  sync.WaitGroup
	stopOnce sync.Once
}

// stamp is what a poll compares of a file or directory.
type stamp struct {
	ino          uint64
	size         int64
	mtime, ctime int64 // ns
}

// pollDir is the last poll of a directory: its entries and their stamps
// (files) or names (subdirectories: zero stamps).
type pollDir struct {
	entries map[string]stamp
}

type bucketPoll struct {
	dir   stamp
	racy  bool
	files map[string]stamp // nil until the bucket changed once
}

// racyPollWindow: a directory whose mtime or ctime is this recent when
// read may change again within its timestamp granularity unseen.
const racyPollWindow = 2 * time.Second

func newPoller(w *watcher, interval time.Duration) *poller {
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	return &poller{
		w: w, interval: interval,
		dirs: map[string]pollDir{}, buckets: map[string]*bucketPoll{}, kinds: map[string]Kind{},
		dataDirs: map[string]*dataDirPoll{}, maxKeptFDs: keptFDBudget(),
		done: make(chan struct{}),
	}
}

// start takes the first look (announcing nothing) and polls until stop.
func (p *poller) start() {
	p.poll(false)
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		t := time.NewTimer(p.interval)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
			}
			p.poll(true)
			// From the end of a poll: a slow file system stretches the
			// interval instead of polling back to back.
			t.Reset(p.interval)
		}
	}()
}

// stop ends the polling; later calls do nothing (an unmount may stop
// watching twice: Shutdown, then Wait).
func (p *poller) stop() {
	p.stopOnce.Do(func() {
		close(p.done)
		p.stopped.Wait()
		for _, d := range p.dataDirs {
			p.closeKept(d)
		}
	})
}

// poll compares everything under ROOT with the last poll; announce queues
// an invalidation for each difference (false: only record the state).
func (p *poller) poll(announce bool) {
	p.visited = map[string]bool{}
	p.pollChild("", announce)
	// Forget what is gone, so the state does not grow with every
	// directory ever seen and a recreated one starts afresh.
	for dir := range p.dirs {
		if !p.visited[dir] {
			delete(p.dirs, dir)
		}
	}
	for dir := range p.buckets {
		if !p.visited[dir] {
			delete(p.buckets, dir)
		}
	}
	for dir, d := range p.dataDirs {
		if !p.visited[dir] {
			p.closeKept(d)
			delete(p.dataDirs, dir)
		}
	}
	for rel := range p.kinds {
		if !p.visited[kindKey(rel)] {
			delete(p.kinds, rel)
		}
	}
}

// kindKey marks a catalog path visited (visited otherwise holds disk paths).
func kindKey(rel string) string { return "\x00" + rel }

func (p *poller) queue(announce bool, inv invalidation) {
	if announce {
		p.w.m.outsideChanges.Add(1)
		p.w.queue(inv)
	}
}

// pollChild polls catalog directory rel according to its kind.
func (p *poller) pollChild(rel string, announce bool) {
	kind := p.w.m.catalog.Kind(rel)
	if old, seen := p.kinds[rel]; seen && old != kind && rel != "" {
		p.queue(announce, invalidation{mount: parentOf(rel), name: path.Base(rel)})
		p.queue(announce, invalidation{mount: rel})
	}
	p.kinds[rel] = kind
	p.visited[kindKey(rel)] = true
	dir := p.w.m.catalog.Path(rel)
	switch kind {
	case KindDocStore:
		p.pollCollection(dir, rel, announce)
	case KindLog:
		p.pollLog(p.w.m.catalog.OpenLog(rel), rel, announce)
	case KindQueue:
		file := p.w.m.catalog.OpenQueue(rel).StateFile()
		if p.pollFiles(dir, func(name string) bool { return name == file }) != nil {
			p.queue(announce, invalidation{mount: rel})
		}
	default:
		if strings.Count(rel, "/") >= namespaceDepth {
			return
		}
		names, _ := readDirNames(dir)
		for _, name := range p.diffNames(dir, names) {
			if !isHidden(name) {
				p.queue(announce, invalidation{mount: rel, name: name})
			}
		}
		for _, name := range names {
			if !isHidden(name) {
				p.pollChild(childRel(rel, name), announce)
			}
		}
	}
}

// pollLog polls a log directory: its manifest, segments and partitions
// (LogStore.Layout).
func (p *poller) pollLog(log LogStore, mount string, announce bool) {
	dir, layout := log.Dir(), log.Layout()
	changed := p.pollFiles(dir, func(name string) bool { return name == layout.Manifest }) != nil
	if segs := dir + "/" + layout.Segments; isDir(segs) {
		for _, name := range p.pollFiles(segs, layout.IsSegment) {
			changed = true
			p.queue(announce, invalidation{mount: childRel(mount, segmentsView), name: name})
		}
	}
	if parts := dir + "/" + layout.Partitions; isDir(parts) {
		names, _ := readDirNames(parts)
		for _, name := range p.diffNames(parts, names) {
			changed = true
			p.queue(announce, invalidation{mount: mount, name: name})
		}
		for _, name := range names {
			if !isHidden(name) {
				p.pollLog(log.Partition(name), childRel(mount, name), announce)
			}
		}
	}
	if changed {
		p.queue(announce, invalidation{mount: mount})
		p.queue(announce, invalidation{mount: mount, name: recordsView})
		p.queue(announce, invalidation{mount: mount, name: segmentsView})
	}
}

// pollFiles stamps the regular files of dir that keep selects and returns
// the names that changed since the last poll.
func (p *poller) pollFiles(dir string, keep func(name string) bool) []string {
	cur := dirStamps(dir, func(name string, mode uint32) bool { return mode == unix.S_IFREG && keep(name) })
	return p.remember(dir, cur)
}

// diffNames records the subdirectory names of dir and returns those that
// appeared or went since the last poll (none at the first).
func (p *poller) diffNames(dir string, names []string) []string {
	cur := make(map[string]stamp, len(names))
	for _, n := range names {
		cur[n] = stamp{}
	}
	return p.remember(dir, cur)
}

// remember keeps cur as dir's entries for the next poll and returns the
// names that changed since the last one (none at the first).
func (p *poller) remember(dir string, cur map[string]stamp) []string {
	p.visited[dir] = true
	old, seen := p.dirs[dir]
	p.dirs[dir] = pollDir{entries: cur}
	if !seen {
		return nil
	}
	var out []string
	for name := range changedNames(old.entries, cur) {
		out = append(out, name)
	}
	return out
}

func stampOfUnix(st *unix.Stat_t) stamp {
	return stamp{ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// dirStamps lists dir (reached without following a symlink) and stamps
// the entries keep selects (by name and file type), each with fstatat(2)
// relative to the open directory: one lookup per entry, not one per path
// component, which counts on a network file system. Nothing (nil) when
// dir cannot be read.
func dirStamps(dir string, keep func(name string, mode uint32) bool) map[string]stamp {
	f, err := fsutil.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	entries, _ := f.ReadDir(-1)
	out := make(map[string]stamp, len(entries))
	for _, e := range entries {
		var st unix.Stat_t
		if unix.Fstatat(int(f.Fd()), e.Name(), &st, unix.AT_SYMLINK_NOFOLLOW) != nil || !keep(e.Name(), st.Mode&unix.S_IFMT) {
			continue
		}
		out[e.Name()] = stampOfUnix(&st)
	}
	return out
}

// changedNames are the names whose stamps differ between old and cur
// (nil old: every name of cur).
func changedNames(old, cur map[string]stamp) map[string]bool {
	out := map[string]bool{}
	for name, s := range cur {
		if o, ok := old[name]; !ok || o != s {
			out[name] = true
		}
	}
	for name := range old {
		if _, ok := cur[name]; !ok {
			out[name] = true
		}
	}
	return out
}

func isRacy(s stamp, now time.Time) bool {
	return now.Sub(time.Unix(0, s.mtime)) < racyPollWindow || now.Sub(time.Unix(0, s.ctime)) < racyPollWindow
}
