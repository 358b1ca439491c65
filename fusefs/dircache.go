package fusefs

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/shard"
)

// recordListing keeps the last listing of one collection (its record ids,
// read through RecordStore.ListIDs (shard.ListIDs), which re-reads only bucket directories whose
// mtime moved) and decides when the kernel may serve a listing from its
// own readdir cache (FOPEN_CACHE_DIR).
//
// Kernel cache rule: the kernel fills its cache from whatever handle was
// opened with FOPEN_CACHE_DIR, and drops it when a directory open comes
// back without FOPEN_KEEP_CACHE (fuse_dir_open) or the mount changes the
// directory itself. So an open gets FOPEN_CACHE_DIR only when the listing
// is the one the kernel was last allowed to cache (kernelGen) and no
// handle of an older listing that might still fill the cache is open;
// every other open invalidates the kernel's copy.
type recordListing struct {
	mu         sync.Mutex
	ids        *shard.IDList // nil: nothing kept (too big, or never listed)
	scratch    []fuse.DirEntry
	gen        uint64         // bumped when ids or scratch changed
	kernelGen  uint64         // the listing the kernel may hold; 0 = none
	openCached map[uint64]int // open FOPEN_CACHE_DIR handles by gen

	// lookups counts record lookups since the last open, whether or not
	// they follow a listing: a heuristic whose only effect is that one
	// listing is read from the mount instead of the kernel's cache.
	lookups atomic.Int64
}

// maxCachedIDs bounds the memory one collection's kept listing may use
// (about 80 bytes an id); bigger collections are read on every listing.
const maxCachedIDs = 1 << 20

// dirListing is what one open directory handle lists.
type dirListing struct {
	ids         []string
	scratch     []fuse.DirEntry
	gen         uint64
	kernelCache bool // opened with FOPEN_CACHE_DIR; release with done
}

// listIDs is RecordStore.ListIDs.
type listIDs func(prev *shard.IDList, now time.Time) (list *shard.IDList, changed bool, err error)

// open reads the collection's listing (the records listed by list, then
// the given scratch entries) and says whether the kernel may cache it.
// longEntries: the kernel caches the collection's entries for the long
// timeout (coverage.go), so a listing from its cache costs no LOOKUP.
func (l *recordListing) open(list listIDs, scratch []fuse.DirEntry, now time.Time, longEntries bool) (dirListing, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids, changed, err := list(l.ids, now)
	if err != nil {
		return dirListing{}, err
	}
	if changed || l.gen == 0 || !slices.Equal(scratch, l.scratch) {
		l.gen++
	}
	l.scratch = scratch
	l.ids = ids
	if ids.Len() > maxCachedIDs {
		l.ids = nil
	}
	out := dirListing{ids: ids.IDs, scratch: scratch, gen: l.gen}
	statted := l.lookups.Swap(0) > int64(ids.Len()/2) && !longEntries
	staleOpen := false
	for gen, n := range l.openCached {
		staleOpen = staleOpen || gen != l.gen && n > 0
	}
	switch {
	case staleOpen:
		l.kernelGen = 0 // invalidate again once they are closed
	case statted || l.kernelGen != l.gen:
		// This open drops the kernel's copy, which the next may refill.
		// After a listing whose entries were then looked up one by one
		// (ls -l, a walk opening every record) the copy is dropped even
		// if current: from it each entry would cost a LOOKUP round trip
		// once its 1 s entry timeout passed, while read from the mount
		// the listing comes as READDIRPLUS, attributes included. Not
		// where entries are cached long: they are still in the kernel.
		l.kernelGen = l.gen
	default:
		out.kernelCache = true
		if l.openCached == nil {
			l.openCached = map[uint64]int{}
		}
		l.openCached[l.gen]++
	}
	return out, nil
}

// lookedUp counts a lookup of one of the collection's records.
func (l *recordListing) lookedUp() { l.lookups.Add(1) }

// done releases a handle opened with kernelCache.
func (l *recordListing) done(gen uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.openCached[gen]--; l.openCached[gen] <= 0 {
		delete(l.openCached, gen)
	}
}
