package fusefs

import (
	"fmt"
	"io/fs"
	"time"

	"github.com/storhfs/storhfs/core/fsutil"
)

// A queue folder's files and the view behind each.
var queueViews = []struct {
	name string
	view QueueView
}{
	{"pending.ndjson", QueuePending},
	{"processing.ndjson", QueueProcessing},
	{"done.ndjson", QueueDone},
	{"events.ndjson", QueueEvents},
}

func queueView(name string) (QueueView, bool) {
	for _, v := range queueViews {
		if v.name == name {
			return v.view, true
		}
	}
	return 0, false
}

// queueSource serves the views of one queue directory from the store's
// read-only snapshots (no lock, no truncation).
type queueSource struct {
	store QueueStore
	cache snapshotCache
	views viewNodes
}

func newQueueSource(store QueueStore) *queueSource {
	s := &queueSource{store: store}
	s.cache.fingerprint = s.fingerprint
	s.cache.take = func(prev any) (any, func() error, error) {
		p, _ := prev.(QueueSnapshot)
		snap, err := store.SnapshotAfter(p)
		if err != nil {
			return nil, nil, err
		}
		return snap, snap.Close, nil
	}
	return s
}

// fingerprint: the one file the queue is read from (QueueStore.StateFile).
func (s *queueSource) fingerprint() (fingerprint, error) {
	fi, err := fsutil.Stat(s.store.Dir() + "/" + s.store.StateFile())
	if err != nil {
		return fingerprint{}, err
	}
	return fingerprint{
		key:    fmt.Sprintf("%d %d %d", fi.Size(), fi.ModTime().UnixNano(), inodeOf(fi)),
		mtimes: map[string]time.Time{"": fi.ModTime()},
	}, nil
}

func (s *queueSource) snapshot(name string) (*sharedSnapshot, QueueSnapshot, QueueView, error) {
	v, ok := queueView(name)
	if !ok {
		return nil, nil, 0, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	shared, err := s.cache.acquire()
	if err != nil {
		return nil, nil, 0, err
	}
	return shared, shared.snap.(QueueSnapshot), v, nil
}

func (s *queueSource) nodes() *viewNodes { return &s.views }

func (s *queueSource) latest(name string) (viewSnap, error) {
	shared, snap, v, err := s.snapshot(name)
	if err != nil {
		return nil, err
	}
	size, err := snap.ViewSize(v)
	if err != nil {
		shared.release()
		return nil, err
	}
	st := viewStat{size: size, mtime: shared.fp.mtime(""), key: shared.fp.key}
	return &queueViewSnap{shared: shared, snap: snap, view: v, st: st}, nil
}

// queueViewSnap is one queue view in one snapshot.
type queueViewSnap struct {
	shared *sharedSnapshot
	snap   QueueSnapshot
	view   QueueView
	st     viewStat
}

var _ viewSnap = (*queueViewSnap)(nil)

func (v *queueViewSnap) stat() viewStat { return v.st }
func (v *queueViewSnap) retain()        { v.shared.retain() }
func (v *queueViewSnap) release()       { v.shared.release() }

func (v *queueViewSnap) newReader() (viewReader, error) {
	return queueViewReader{v.snap, v.view}, nil
}

// extendsKnown: the events view only grows with the queue's file; the job views
// are compared by content.
func (v *queueViewSnap) extendsKnown(prev viewSnap) bool {
	p, ok := prev.(*queueViewSnap)
	return ok && p.view == v.view && v.view == QueueEvents && v.snap.EventsExtend(p.snap)
}

type queueViewReader struct {
	snap QueueSnapshot
	view QueueView
}

func (r queueViewReader) ReadAt(p []byte, off int64) (int, error) {
	return r.snap.ReadAt(r.view, p, off)
}

func (queueViewReader) Close() error { return nil }
