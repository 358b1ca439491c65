package seglog

import (
	"os"
	"strings"
	"sync"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// Log is a PHP-compatible SegmentedLogStore instance on one collection (or
// partition) directory. Opening it behaves like PHP's constructor: it takes
// the lock, sweeps, drops compaction leftovers and truncates invalid lines.
// Like a PHP instance, its state index covers the lines on disk at its last
// open/recover plus its own writes. Methods are safe for concurrent use
// (serialised by a mutex); mutations also hold flock on collection.lock.
type Log struct {
	mu sync.Mutex

	view // manifest, state index and segment stats as this instance sees them

	dir  string // collection (partition) directory
	opts Options

	lock   *fsutil.Lock
	writer *fsutil.Writer

	manStat fileStamp // of the manifest view.man was read from

	active *activeSegment // open append handle, nil until the first append

	closed bool
}

// Open opens (creating if needed) the log collection under root with opts,
// exactly as storh's constructor does (docs/format/segmentedlog.md §5.1).
func Open(root, collection string, opts Options) (*Log, error) {
	if err := opts.normalise(); err != nil {
		return nil, err
	}
	ts := opts.Now().UnixMilli()
	if opts.PartitionTimestampMs != nil {
		ts = *opts.PartitionTimestampMs
	}
	dir := CollectionDir(root, collection, opts.Partition, ts)
	if opts.NewID == nil {
		gen := uuidv7.NewGenerator(func() int64 { return opts.Now().UnixMilli() }, nil)
		opts.NewID = gen.New
	}
	l := &Log{
		view: view{segDir: dir + "/" + segmentsDirName, buf: make([]byte, scanBufSize)},
		dir:  dir,
		opts: opts,
	}
	if err := l.open(); err != nil {
		l.closeFiles()
		return nil, err
	}
	return l, nil
}

func (l *Log) open() (err error) {
	if err := fsutil.EnsureDir(l.dir); err != nil {
		return err
	}
	lock, err := fsutil.OpenLock(l.dir+"/"+lockName, os.O_WRONLY)
	if err != nil {
		return err
	}
	l.lock = lock
	if err := l.lock.Lock(); err != nil {
		return err
	}
	defer l.lock.UnlockInto(&err)
	if err := fsutil.EnsureDir(l.segDir); err != nil {
		return err
	}
	if err := fsutil.SweepOnOpen(l.dir, l.opts.Now()); err != nil {
		return err
	}
	l.writer = fsutil.NewWriter(l.dir)
	if err := l.writer.Register(); err != nil {
		return err
	}
	removeLegacyDirs(l.dir)
	m := l.removeCompactionLeftovers()
	if _, err := fsutil.Stat(l.dir + "/" + manifestName); isNotExist(err) {
		if err := touch(l.segDir + "/" + firstSegment); err != nil {
			return err
		}
		if err := writeManifestDoc(l.dir, initialManifestDoc()); err != nil {
			return err
		}
		m = nil
	}
	if m == nil {
		return l.recoverLocked()
	}
	return l.recoverFrom(m) // nothing rewrote the manifest since (lock held)
}

// Close releases the instance: the append and read handles, the writer
// marker and the lock file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	return l.closeFiles()
}

func (l *Log) closeFiles() error {
	l.dropActive()
	if l.writer != nil {
		l.writer.Unregister()
	}
	if l.lock != nil {
		return l.lock.Close()
	}
	return nil
}

// removeLegacyDirs deletes segments.compact-*, index.rebuild-* and
// index.backup-* directories (docs/format/segmentedlog.md §5.1 step 5).
func removeLegacyDirs(dir string) {
	entries, err := fsutil.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() && (strings.HasPrefix(n, "segments.compact-") || strings.HasPrefix(n, "index.rebuild-") || strings.HasPrefix(n, "index.backup-")) {
			_ = fsutil.RemoveAll(dir + "/" + n)
		}
	}
}

// removeCompactionLeftovers deletes segments/compact-*.ndjson and
// compact-*.idx.jsonc that the manifest does not reference (all of them
// when the manifest is missing, none when it is unreadable). It returns
// the manifest it read, if any.
func (l *Log) removeCompactionLeftovers() *manifest {
	var ref map[string]bool
	m, err := readManifest(l.dir)
	switch {
	case err == nil:
		ref = m.referenced()
	case isNotExist(err):
		ref = map[string]bool{}
	default:
		return nil
	}
	entries, err := fsutil.ReadDir(l.segDir)
	if err != nil {
		return m
	}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, "compact-") || !(strings.HasSuffix(n, ".ndjson") || strings.HasSuffix(n, ".idx.jsonc")) {
			continue
		}
		if !ref[n] {
			_ = fsutil.Remove(l.segDir + "/" + n)
		}
	}
	return m
}

// touch creates path empty if it does not exist (never truncates).
func touch(path string) error {
	f, err := fsutil.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return &SegmentOpenError{File: path, Err: err}
	}
	return f.Close()
}
