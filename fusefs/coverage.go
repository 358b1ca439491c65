package fusefs

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultCacheTimeout is how long the kernel keeps the entries, attributes
// and pages of records whose every change the watcher sees (watchCoverage).
const DefaultCacheTimeout = time.Hour

// watchCoverage says which collections the watcher sees every change of:
// the collection directory, data/ and every bucket are watched, on a
// local file system. Only their records are cached by the kernel for the
// long timeout (the watcher invalidates what changes); everything else,
// and every collection after a watch could not be added, keeps the short
// cacheTimeout.
//
// Invariant: a collection is covered only while all its directories are
// watched; a collection loses coverage before its cached records are
// dropped (watcher.lose), so no reply given after the drop is cached long.
type watchCoverage struct {
	timeout time.Duration // the long timeout; 0: nothing is covered (--no-watch)

	mu      sync.Mutex
	covered map[string]bool // collection rel path -> all its directories watched
}

// cacheTimeout is the kernel cache lifetime for the records of collection
// rel: the long timeout when covered, else 0 (the mount's default).
func (c *watchCoverage) cacheTimeout(rel string) time.Duration {
	if c.timeout == 0 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.covered[rel] {
		return c.timeout
	}
	return 0
}

func (c *watchCoverage) set(rel string, covered bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.covered == nil {
		c.covered = map[string]bool{}
	}
	if covered {
		c.covered[rel] = true
	} else {
		delete(c.covered, rel)
	}
}

// localFS reports whether dir is on a local file system, where inotify
// reports every change. On a network file system (NFS, SMB, Ceph, 9p) or a
// FUSE one, changes made by other hosts or by the FUSE server are not
// reported.
func localFS(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.OVERLAYFS_SUPER_MAGIC, unix.RAMFS_MAGIC,
		unix.REISERFS_SUPER_MAGIC, unix.NILFS_SUPER_MAGIC, zfsSuperMagic, bcachefsSuperMagic:
		return true
	}
	return false
}

// File system magic numbers golang.org/x/sys/unix does not define.
const (
	zfsSuperMagic      = 0x2fc12fc1
	bcachefsSuperMagic = 0xca451a4e
)
