package fusefs

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// collectionNode is a DocStore collection shown as one flat directory:
// every record as <id>.jsonc in id order, then the scratch files (editor
// and tool temporaries, kept in memory only). Records are created by
// writing and closing <id>.jsonc or by renaming a scratch file onto it.
type collectionNode struct {
	gofs.Inode
	m   *mountState
	rel string

	// commitMu serialises this mount's mutations of the collection: the
	// store's flock is re-entrant within one process and so does not
	// exclude our own goroutines. Lock order: writeHandle.mu or
	// scratchFile.mu, then commitMu, then mu.
	commitMu sync.Mutex

	mu      sync.Mutex
	scratch map[string]*scratchFile          // by name
	writers map[string]map[*writeHandle]bool // open, not orphaned, write handles by record id
	removed bool                             // rmdir succeeded: every operation fails with ENOENT

	nodeWriters nodeWriterTable // uncommitted writes without handles (nodewrites.go)
	sweepQueued bool            // a sweep of nodeWriters is due

	listing recordListing // the last listing, and the kernel's cache of it (dircache.go)

	// mutations counts this mount's changes to stored records (puts,
	// deletes, times), bumped after each: a stat taken ahead by a listing
	// is used only if the count has not moved since (statahead.go).
	mutations atomic.Uint64
}

var (
	_ gofs.NodeGetattrer      = (*collectionNode)(nil)
	_ gofs.NodeSetattrer      = (*collectionNode)(nil)
	_ gofs.NodeLookuper       = (*collectionNode)(nil)
	_ gofs.NodeOpendirHandler = (*collectionNode)(nil)
	_ gofs.NodeCreater        = (*collectionNode)(nil)
	_ gofs.NodeUnlinker       = (*collectionNode)(nil)
	_ gofs.NodeRenamer        = (*collectionNode)(nil)
	_ gofs.NodeMkdirer        = (*collectionNode)(nil)
	_ gofs.NodeRmdirer        = (*collectionNode)(nil)
)

func (c *collectionNode) store() (RecordStore, syscall.Errno) {
	if c.isRemoved() {
		return nil, syscall.ENOENT
	}
	s, err := c.m.store(c.rel)
	if err != nil {
		c.m.log.Printf("open collection %s: %v", c.rel, err)
		return nil, errnoOf(err, syscall.EIO)
	}
	return s, 0
}

func (c *collectionNode) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if c.m.readOnly {
		return nil, syscall.EROFS
	}
	return nil, syscall.EPERM
}

func (c *collectionNode) Rmdir(ctx context.Context, name string) syscall.Errno {
	if c.m.readOnly || isHiddenView(name) {
		return syscall.EROFS
	}
	return syscall.ENOTDIR
}

func (c *collectionNode) isRemoved() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.removed
}
