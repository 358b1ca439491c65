// Package queue is storh's Queue (LogQueue) engine, byte-compatible with the
// PHP library and safe to run beside live PHP workers (docs/format/queue.md).
//
// On disk a queue directory Q holds two files: Q/queue.lock (empty, the
// flock(2) target of every operation) and Q/queue.log (append-only guarded
// event lines, the only state). Queue is the read-write engine; Reader
// (reader.go) serves read-only views without locking or truncating.
package queue

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// Options configures a Queue. The zero value is PHP's defaults.
type Options struct {
	// Now is the clock (PHP time() reads its Unix seconds; generated ids
	// its milliseconds). nil = time.Now.
	Now func() time.Time
	// NewID, when set, replaces the built-in UUIDv7 generator (PHP's
	// id_generator callable); its ids are validated.
	NewID func() (string, error)
}

// Queue is an open queue directory. Every operation takes the flock on
// queue.lock, syncs from queue.log, acts, appends whole lines at EOF, fsyncs
// and unlocks, so Go and PHP workers never claim the same job twice. Safe
// for concurrent use (operations are serialised).
type Queue struct {
	dir     string
	logPath string
	now     func() time.Time
	newID   func() (string, error)
	ids     *uuidv7.Generator

	mu     sync.Mutex
	lock   *fsutil.Lock
	log    *os.File
	offset int64 // end of the log prefix applied to st
	st     *state
	stale  bool // st no longer matches offset (failed write): replay at next sync

	buf     []byte // write buffer, reused
	scratch []byte // one event's JSON, reused

	syncWait time.Duration // total time spent in fsync (benchmarks split I/O from CPU)
}

// Dir returns the queue directory of root and name as PHP builds it:
// rtrim(root, "/\\") + "/" + name (name verbatim).
func Dir(root, name string) string {
	return strings.TrimRight(root, `/\`) + "/" + name
}

// Open opens (creating if needed) the queue name under root, like PHP's
// new LogQueue(root, name).
func Open(root, name string, opts Options) (*Queue, error) {
	return OpenDir(Dir(root, name), opts)
}

// OpenDir opens the queue directory dir: mkdir -p, then under the lock a full
// replay that truncates queue.log at its first invalid line (PHP's
// constructor, docs/format/queue.md §7).
func OpenDir(dir string, opts Options) (*Queue, error) {
	q := &Queue{dir: dir, logPath: dir + "/" + logName, now: opts.Now, newID: opts.NewID}
	if q.now == nil {
		q.now = time.Now
	}
	q.ids = uuidv7.NewGenerator(func() int64 { return q.now().UnixMilli() }, nil)
	if err := fsutil.MkdirAll(dir); err != nil {
		if st, statErr := fsutil.Stat(dir); statErr != nil || !st.IsDir() {
			return nil, storageError("Could not create storage directory: %s", dir, err)
		}
	}
	lock, err := fsutil.OpenLock(dir+"/queue.lock", os.O_RDWR)
	if err != nil {
		return nil, withCause(ErrOpenLock, err)
	}
	q.lock = lock
	err = q.locked(func() error {
		if err := q.openLog(); err != nil {
			return err
		}
		return q.replayAndTruncate()
	})
	if err != nil {
		q.closeFiles()
		return nil, err
	}
	return q, nil
}

// Close releases the files. Further operations fail with ErrClosed.
func (q *Queue) Close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closeFiles()
}

func (q *Queue) closeFiles() error {
	var errs []error
	if q.log != nil {
		errs = append(errs, q.log.Close())
		q.log = nil
	}
	if q.lock != nil {
		errs = append(errs, q.lock.Close())
		q.lock = nil
	}
	q.st = nil
	return errors.Join(errs...)
}

// Path returns the queue directory.
func (q *Queue) Path() string { return q.dir }

func (q *Queue) openLog() error {
	if q.log != nil {
		return nil
	}
	f, err := fsutil.OpenFile(q.logPath, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return withCause(ErrOpenLog, err)
	}
	q.log = f
	return nil
}

// locked runs fn holding q.mu and the flock.
func (q *Queue) locked(fn func() error) error {
	if q.lock == nil {
		return ErrClosed
	}
	if err := q.lock.Lock(); err != nil {
		return withCause(ErrLock, err)
	}
	err := fn()
	if uerr := q.lock.Unlock(); uerr != nil && err == nil {
		err = withCause(ErrLock, uerr)
	}
	return err
}

// op runs fn under q.mu and the flock, after syncing the state from the log.
func (q *Queue) op(fn func(now int64) error) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.locked(func() error {
		if err := q.sync(); err != nil {
			return err
		}
		return fn(q.now().Unix())
	})
}

// replayAndTruncate rebuilds the state from byte 0 and cuts the log at its
// first invalid line (constructor and repair()).
func (q *Queue) replayAndTruncate() error {
	size, err := q.logSize()
	if err != nil {
		return err
	}
	st := newState()
	res, err := replay(q.log, 0, size, 1, st, q.now().Unix(), true, nil)
	if err != nil {
		return fmt.Errorf("replay %s: %w", q.logPath, err)
	}
	q.st, q.offset, q.stale = st, res.end, false
	if res.end < size {
		return q.truncateTail()
	}
	return nil
}

// sync applies what other writers appended since the last sync (docs/format/queue.md
// §5.1): a shrunken file is replayed from 0, a grown one from q.offset; both
// stop silently at the first invalid line and never truncate.
func (q *Queue) sync() error {
	if q.st == nil {
		return ErrClosed
	}
	size, err := q.logSize()
	if err != nil {
		return err
	}
	if q.stale || size < q.offset {
		q.st, q.offset, q.stale = newState(), 0, false
	}
	if size == q.offset {
		return nil
	}
	res, err := replay(q.log, q.offset, size, 1, q.st, q.now().Unix(), true, nil)
	q.offset = res.end
	if err != nil {
		q.stale = true
		return fmt.Errorf("sync %s: %w", q.logPath, err)
	}
	return nil
}

func (q *Queue) logSize() (int64, error) {
	fi, err := q.log.Stat()
	if err != nil {
		return 0, withCause(ErrReadLog, err)
	}
	return fi.Size(), nil
}

// truncateTail cuts an invalid tail at q.offset and fsyncs. Only ever called
// under the lock, with PHP's exact validity rules having found the tail
// invalid.
func (q *Queue) truncateTail() error {
	if err := q.log.Truncate(q.offset); err != nil {
		return storageError("Could not write storage file: %s", q.logPath, err)
	}
	if err := q.log.Sync(); err != nil {
		return storageError("Could not sync storage file: %s", q.logPath, err)
	}
	return nil
}

// prepareAppend makes EOF equal q.offset before a write: an invalid tail
// left by a crashed writer is cut (docs/format/queue.md §7), so a new line
// is never glued onto torn bytes.
func (q *Queue) prepareAppend() error {
	size, err := q.logSize()
	if err != nil {
		return err
	}
	if size > q.offset {
		return q.truncateTail()
	}
	return nil
}

// writeLines writes buf at EOF (q.offset). The caller applies the lines to
// the state and then calls commit.
func (q *Queue) writeLines(buf []byte) error {
	if _, err := q.log.WriteAt(buf, q.offset); err != nil {
		q.stale = true
		return storageError("Could not write storage file: %s", q.logPath, err)
	}
	q.offset += int64(len(buf))
	return nil
}

// commit fsyncs the appended lines (one fsync per operation or batch).
func (q *Queue) commit() error {
	start := time.Now()
	err := q.log.Sync()
	q.syncWait += time.Since(start)
	if err != nil {
		q.stale = true
		return storageError("Could not sync storage file: %s", q.logPath, err)
	}
	return nil
}
