package docstore

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/shard"
)

// The record cache keeps the decoded data of records that Get and GetEach
// (and so the queries) have read, so that reading one again costs a stat
// instead of an open, a read and a decode. PHP's DocStore keeps the same
// per-instance cache (docs/format/docstore.md §8.7), but validates it by
// mtime in seconds and size, which misses a same-size rewrite within a
// second. Ours is stricter:
//
//   - A hit is served only when an lstat of the record path shows the very
//     file that was read (device and inode), unchanged (size, mtime and
//     ctime to the nanosecond). Every storh write replaces the file by a
//     rename, so it always has another inode; an in-place write changes the
//     ctime, which no process can set back.
//   - A record is cached only when its ctime is more than racyWindow in the
//     past when it is read (fstat before the read): a change after that
//     read then gets a ctime at least racyWindow later, so two versions
//     cannot share a ctime even on filesystems that keep timestamps in
//     whole seconds or reuse a freed inode number at once, and a write
//     still in progress is never cached.
//   - Callers own what they get: the cache stores a copy of the data and
//     hands out a copy on every hit.
//
// The stat walks the path as the kernel does; only the read of a miss
// refuses symlinks on the way (fsutil.OpenAt). A symlinked bucket thus
// serves a hit only for the same inode that was read without symlinks and
// is unchanged since.

// Bounds of one Store's record cache. When full, an arbitrary entry makes
// room for a new one.
const (
	recordCacheEntries = 100_000  // PHP's WRITE_CACHE_LIMIT
	recordCacheBytes   = 16 << 20 // sum of the cached record files' sizes (decoded: ~4x for small records)
	recordCacheMaxSize = 1 << 20  // larger records are not cached
	racyWindow         = time.Second
)

// fileVersion identifies one version of one file as lstat reports it.
type fileVersion struct {
	dev, ino     uint64
	size         int64
	mtime, ctime unix.Timespec
}

func versionOf(st *unix.Stat_t) fileVersion {
	return fileVersion{dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size, mtime: st.Mtim, ctime: st.Ctim} // Dev is int32 on darwin
}

// cachedRecord is the data of one record file version.
type cachedRecord struct {
	version fileVersion
	data    *phpjson.Array // never handed out: callers get clones
}

// recordCache maps record ids to their last read version. Safe for
// concurrent use; the zero value is empty and ready.
type recordCache struct {
	mu      sync.Mutex
	entries map[string]cachedRecord
	bytes   int64 // sum of entries' version.size

	// now is the clock racyWindow is measured on: the kernel's, so the
	// real time, not Options.NowMs (nil: time.Now; tests move it).
	now func() time.Time
}

func (c *recordCache) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

func (c *recordCache) lookup(id string) (cachedRecord, bool) {
	c.mu.Lock()
	e, ok := c.entries[id]
	c.mu.Unlock()
	return e, ok
}

func (c *recordCache) forget(id string) {
	c.mu.Lock()
	c.forgetLocked(id)
	c.mu.Unlock()
}

func (c *recordCache) forgetLocked(id string) {
	if e, ok := c.entries[id]; ok {
		c.bytes -= e.version.size
		delete(c.entries, id)
	}
}

// remember caches e for id (replacing what was cached), evicting arbitrary
// entries until both bounds hold.
func (c *recordCache) remember(id string, e cachedRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = make(map[string]cachedRecord)
	}
	c.forgetLocked(id)
	for other := range c.entries {
		if len(c.entries) < recordCacheEntries && c.bytes+e.version.size <= recordCacheBytes {
			break
		}
		c.forgetLocked(other)
	}
	c.entries[id] = e
	c.bytes += e.version.size
}

// loadCached is loadRecord through the record cache, for a record
// file of a valid id (f.idValid).
func (s *Store) loadCached(id string, f recordFile) (*Record, int, error) {
	if rec, size, ok := s.cacheHit(id, unix.AT_FDCWD, f.path); ok {
		return rec, size, nil
	}
	var st unix.Stat_t
	f.stat = &st
	rec, size, err := loadRecord(id, f, nil)
	if err == nil && rec != nil && cacheable(&st, size, s.cache.clock()) {
		s.cache.remember(id, cachedRecord{version: versionOf(&st), data: rec.Data.Clone()})
	}
	return rec, size, err
}

// cacheHit returns a copy of the cached record of id, and its file's
// size, when its file rel below the directory dirfd (unix.AT_FDCWD: the
// working directory) is the version cached; it reads no file.
func (s *Store) cacheHit(id string, dirfd int, rel string) (*Record, int, bool) {
	e, ok := s.cache.lookup(id)
	if !ok {
		return nil, 0, false
	}
	var st unix.Stat_t
	if lstatAt(dirfd, rel, &st) == nil && versionOf(&st) == e.version {
		return &Record{ID: id, Data: e.data.Clone()}, int(e.version.size), true
	}
	s.cache.forget(id)
	return nil, 0, false
}

// eachCached calls fn, in order, with the records of ids that the cache
// serves, up to the first one that must be read from its file, and
// returns the ids from that one on. Its stats are relative to C/data,
// opened once without symlinks: a shorter path walk is most of what a hit
// costs. A query racing a rename of C/data thus sees the records as they
// were before it.
func (s *Store) eachCached(ids []string, fn func(id string, rec *Record) error) ([]string, error) {
	if len(ids) == 0 {
		return ids, nil
	}
	if _, ok := s.cache.lookup(ids[0]); !ok {
		return ids, nil
	}
	dirfd, err := fsutil.OpenAt(unix.AT_FDCWD, shard.DataDir(s.dir), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return ids, nil // unreadable: the reads report what is wrong
	}
	defer unix.Close(dirfd)
	for ; len(ids) > 0; ids = ids[1:] {
		id := ids[0]
		rec, _, ok := s.cacheHit(id, dirfd, shard.BucketOf(id)+"/"+id+shard.RecordExt)
		if !ok {
			break
		}
		if err := fn(id, rec); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// cacheable says whether the record read as size bytes from the file that
// fstat reported as st may be cached at now (see racyWindow).
func cacheable(st *unix.Stat_t, size int, now time.Time) bool {
	return st.Mode&unix.S_IFMT == unix.S_IFREG &&
		st.Size == int64(size) && size <= recordCacheMaxSize &&
		time.Unix(st.Ctim.Unix()).Add(racyWindow).Before(now)
}

// lstatAt is an fstatat of rel below dirfd that does not follow a last
// symlink, retried on EINTR.
func lstatAt(dirfd int, rel string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirfd, rel, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}

// fstat is unix.Fstat retried on EINTR.
func fstat(fd int, st *unix.Stat_t) error {
	for {
		err := unix.Fstat(fd, st)
		if err != unix.EINTR {
			return err
		}
	}
}
