// Package docstore is the DocStore engine: one JSONC file per record in 256
// id-tail buckets, secondary indexes, maintenance, JSONL import/export,
// byte-compatible with PHP storh and safe to share with live PHP writers
// (docs/format/docstore.md).
//
// Layout of a collection C = rtrim(root, "/\\") + "/" + collection:
//
//	C/data/<id[24:26]>/<id>.jsonc   records: {"id":"<id>","data":<J(data)>}\n
//	C/.storh/write.lock             flock(LOCK_EX) target of every mutation
//	C/.storh/writers/<pid>.<hex8>   marker of a live writing instance
//	C/.storh/corrupt/               quarantine of repair()
//	C/.storh/indexes/               manifest + derived entries (core/docindex)
//
// Concurrency: every mutation runs under s.mu (goroutines of this process)
// and the flock (other instances and processes), registers the writer
// marker and re-reads the index manifest first. Reads take no lock and rely
// on atomic renames.
package docstore

import (
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
	"github.com/storhfs/storhfs/shard"
)

// Record is one stored record.
type Record struct {
	ID   string
	Data *phpjson.Array
}

// Options configures a Store. Zero values mean the PHP defaults.
type Options struct {
	// NowMs is the wall clock in Unix milliseconds (ids, sweep ages).
	NowMs func() int64
	// IDs replaces the UUIDv7 generator (PHP's custom id generator): its ids
	// are validated and treated as new (no old record lookup).
	IDs func() (string, error)
	// ReadOnly opens without the sweep and without creating anything (for
	// read-only mounts); every mutation then fails with ErrReadOnly.
	ReadOnly bool
	// NoRepair: when Open finds a dead writer's marker it still checks and
	// logs the indexes (recover.go) but does not rebuild the drifted ones.
	NoRepair bool
	// DirSyncErrors: when the fsync of a record's bucket directory fails
	// after the record was renamed into place, the put (its indexes
	// updated) fails with an error wrapping fsutil.ErrDirSync, since the
	// record may not survive a crash. Without it the failure is ignored,
	// as PHP's put does (docs/format/docstore.md §4.1). The mount sets it.
	DirSyncErrors bool
	// Logger receives what Open finds after a dead writer (nil: stderr).
	Logger *log.Logger
	// Hosts says whether writers on other hosts share the collection,
	// which decides what a pid in a marker or temp name proves
	// (fsutil.Hosts); zero: detected from the file system.
	Hosts fsutil.Hosts
}

// Store is one open DocStore collection instance.
type Store struct {
	dir      string
	nowMs    func() int64
	newID    func() (string, error)
	custom   bool // newID is a caller's generator: validate its output
	readOnly bool
	dirSync  bool         // Options.DirSyncErrors
	hosts    fsutil.Hosts // Options.Hosts, resolved for dir
	writer   *fsutil.Writer
	idx      *docindex.Manager
	cache    recordCache // records read by Get and GetEach (recordcache.go)

	mu     sync.Mutex // serialises this instance's mutations (fsutil.Lock is not a goroutine mutex)
	lock   *fsutil.Lock
	closed bool
}

// CollectionDir is PHP's collection path: rtrim(root, "/\\") + "/" + collection.
func CollectionDir(root, collection string) string {
	return strings.TrimRight(root, "/\\") + "/" + collection
}

// Open opens collection under root: it sweeps orphaned temp files as PHP's
// constructor does (docs/format/docstore.md §5.3), creating C/.storh/writers/. When that sweep
// found a dead writer's marker, Open also sweeps the index temps and
// checks (and unless opts.NoRepair repairs) the indexes under the write
// lock (recover.go); what it finds is logged, and it never fails Open. The
// lock file is otherwise opened and the writer marker registered only at
// the first mutation.
func Open(root, collection string, opts Options) (*Store, error) {
	dir := CollectionDir(root, collection)
	nowMs := opts.NowMs
	if nowMs == nil {
		nowMs = func() int64 { return time.Now().UnixMilli() }
	}
	hosts := opts.Hosts.For(dir)
	var deadWriters []string
	if !opts.ReadOnly {
		var err error
		deadWriters, err = hosts.SweepOnOpenStale(dir, time.UnixMilli(nowMs()))
		if err != nil {
			return nil, err
		}
	}
	w := fsutil.NewWriterFor(dir, hosts)
	idx, err := docindex.Open(dir, w)
	if err != nil {
		return nil, err
	}
	s := &Store{dir: dir, nowMs: nowMs, writer: w, idx: idx, readOnly: opts.ReadOnly, dirSync: opts.DirSyncErrors, hosts: hosts}
	if opts.IDs != nil {
		s.newID, s.custom = opts.IDs, true
	} else {
		s.newID = uuidv7.NewGenerator(nowMs, nil).New
	}
	if len(deadWriters) > 0 {
		s.recoverFromDeadWriters(deadWriters, !opts.NoRepair, opts.Logger)
	}
	return s, nil
}

// Close removes this instance's writer marker and closes the lock file.
// The Store must not be used afterwards.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.writer.Unregister()
	if s.lock != nil {
		return s.lock.Close()
	}
	return nil
}

// Dir is the collection directory C.
func (s *Store) Dir() string { return s.dir }

// Indexes is the index manager (reads only; mutate through the Store).
func (s *Store) Indexes() *docindex.Manager { return s.idx }

// RecordPath is C/data/<id[24:26]>/<id>.jsonc (id not validated).
func (s *Store) RecordPath(id string) string { return shard.RecordPath(s.dir, id) }

// withWriteLock runs fn as one mutation: instance mutex, flock on
// C/.storh/write.lock, writer marker registered, manifest re-read (7.10).
func (s *Store) withWriteLock(fn func() error) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("docstore %s: %w", s.dir, os.ErrClosed)
	}
	if s.readOnly {
		return fmt.Errorf("docstore %s: %w", s.dir, ErrReadOnly)
	}
	if s.lock == nil {
		l, err := fsutil.OpenLock(s.dir+"/.storh/write.lock", os.O_RDWR)
		if err != nil {
			return wrapError(nil, msgLockOpen, err)
		}
		s.lock = l
	}
	if err := s.lock.Lock(); err != nil {
		return wrapError(nil, msgLock, err)
	}
	defer s.lock.UnlockInto(&err)
	if err := s.writer.Register(); err != nil {
		return err
	}
	if err := s.idx.Reload(); err != nil {
		return err
	}
	return fn()
}

// validID checks an explicit id (docs/format/docstore.md §3.1).
func validID(id string) error {
	if !uuidv7.Valid(id) {
		return errInvalidID()
	}
	return nil
}
