package fusefs

import (
	"context"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// The hidden views of a collection (README.md, "Index folders and the
// whole-collection file"): reachable by name only, never listed, so ls,
// find, grep -r, rsync and backups see each record once.
const (
	byDirName   = ".by"         // COLL/.by/FIELD/VALUE/<id>.jsonc (byindex.go)
	allFileName = ".all.ndjson" // the collection's export as one file (allfile.go)
)

// isHiddenView reports whether name is one of the hidden views.
func isHiddenView(name string) bool { return name == byDirName || name == allFileName }

// lookupHidden answers a lookup of a hidden view's name; ok is false for
// any other name.
func (c *collectionNode) lookupHidden(ctx context.Context, name string, out *fuse.EntryOut) (n *gofs.Inode, errno syscall.Errno, ok bool) {
	switch name {
	case byDirName:
		n, errno = c.lookupByDir(ctx, out)
	case allFileName:
		n, errno = c.lookupAllFile(ctx, out)
	default:
		return nil, 0, false
	}
	return n, errno, true
}

// viewStamp says how far the views of a collection may have moved: a
// change of the collection by this mount, or one seen by the watcher
// anywhere under ROOT, moves it.
type viewStamp struct {
	mine, outside uint64
}

func (c *collectionNode) viewStamp() viewStamp {
	return viewStamp{mine: c.mutations.Load(), outside: c.m.outsideChanges.Load()}
}

// viewState is when a view was computed, and the stamp then.
type viewState struct {
	stamp viewStamp
	at    time.Time
}

func (c *collectionNode) newViewState() viewState {
	return viewState{stamp: c.viewStamp(), at: time.Now()}
}

// viewCurrent reports whether what was computed at v is still current:
// the stamp has not moved, and it is younger than the mount's short cache
// timeout or, unless ageBounded, the watcher sees every change of the
// collection's records (coverage.go). Derived data PHP writes after the
// record (index files) is ageBounded: the watcher does not see it.
func (c *collectionNode) viewCurrent(v viewState, now time.Time, ageBounded bool) bool {
	if v.at.IsZero() || v.stamp != c.viewStamp() {
		return false
	}
	if now.Sub(v.at) < cacheTimeout {
		return true
	}
	return !ageBounded && c.m.coverage.cacheTimeout(c.rel) > 0
}
