package fusefs

import (
	"fmt"
	"io/fs"
	"time"

	"storhfs/core/fsutil"
	"storhfs/core/queue"
)

// A queue folder's files and the engine view behind each.
var queueViews = []struct {
	name string
	view queue.View
}{
	{"pending.ndjson", queue.ViewPending},
	{"processing.ndjson", queue.ViewProcessing},
	{"done.ndjson", queue.ViewDone},
	{"events.ndjson", queue.ViewEvents},
}

const queueLogFile = "queue.log"

func queueView(name string) (queue.View, bool) {
	for _, v := range queueViews {
		if v.name == name {
			return v.view, true
		}
	}
	return 0, false
}

// queueSource serves the views of one queue directory from queue's
// read-only snapshots (no lock, no truncation).
type queueSource struct {
	dir   string
	cache snapshotCache
}

func newQueueSource(dir string, now func() time.Time) *queueSource {
	s := &queueSource{dir: dir}
	s.cache.fingerprint = s.fingerprint
	s.cache.take = func() (any, func() error, error) {
		snap, err := queue.ReadSnapshot(dir, now)
		if err != nil {
			return nil, nil, err
		}
		return snap, snap.Close, nil
	}
	return s
}

func (s *queueSource) fingerprint() (fingerprint, error) {
	fi, err := fsutil.Stat(s.dir + "/" + queueLogFile)
	if err != nil {
		return fingerprint{}, err
	}
	return fingerprint{
		key:    fmt.Sprintf("%d %d %d", fi.Size(), fi.ModTime().UnixNano(), inodeOf(fi)),
		mtimes: map[string]time.Time{"": fi.ModTime()},
	}, nil
}

func (s *queueSource) snapshot(name string) (*sharedSnapshot, *queue.Snapshot, queue.View, error) {
	v, ok := queueView(name)
	if !ok {
		return nil, nil, 0, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	shared, err := s.cache.acquire()
	if err != nil {
		return nil, nil, 0, err
	}
	return shared, shared.snap.(*queue.Snapshot), v, nil
}

func (s *queueSource) stat(name string) (viewStat, error) {
	shared, snap, v, err := s.snapshot(name)
	if err != nil {
		return viewStat{}, err
	}
	defer shared.release()
	size, err := snap.ViewSize(v)
	return viewStat{size: size, mtime: shared.fp.mtime(""), key: shared.fp.key}, err
}

func (s *queueSource) open(name string) (viewReader, error) {
	shared, snap, v, err := s.snapshot(name)
	if err != nil {
		return nil, err
	}
	return &snapshotReader{ReaderAt: queueViewReader{snap, v}, shared: shared}, nil
}

type queueViewReader struct {
	snap *queue.Snapshot
	view queue.View
}

func (r queueViewReader) ReadAt(p []byte, off int64) (int, error) {
	return r.snap.ReadAt(r.view, p, off)
}
