package fusefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A log folder's views: records.ndjson, and segments/<file> for each
// segment file (a partition folder has the same).
const (
	recordsView  = "records.ndjson"
	segmentsView = "segments"
)

// logSource serves the views of one log directory (one with records)
// from the store's read-only snapshots: it never locks, truncates or
// repairs anything.
type logSource struct {
	store LogStore
	cache snapshotCache
	views viewNodes
}

func newLogSource(store LogStore) *logSource {
	s := &logSource{store: store}
	s.cache.fingerprint = s.fingerprint
	s.cache.take = func(prev any) (any, func() error, error) {
		var base LogSnapshot
		if p, ok := prev.(*logSnapshot); ok {
			base = p.LogSnapshot
		}
		snap, err := store.SnapshotAfter(base)
		if err != nil {
			return nil, nil, err
		}
		// The snapshot holds its segment files open until the last reader
		// releases it.
		return &logSnapshot{LogSnapshot: snap}, snap.Close, nil
	}
	return s
}

// logSnapshot is a log snapshot plus what one pass over its records
// view learns: the exact size and the last bytes (at most streamWindow),
// which tail reads without another pass.
type logSnapshot struct {
	LogSnapshot

	once sync.Once
	size int64
	tail []byte
	err  error

	segmentsOnce sync.Once
	segments     map[string]LogSegment // by file name
}

// records is the records view's size, from the replay when it could count
// it (then no tail is kept), else from one pass.
func (ls *logSnapshot) records() (size int64, tail []byte, err error) {
	if n, ok := ls.KnownRecordsSize(); ok {
		return n, nil, nil
	}
	ls.once.Do(func() {
		var win []byte
		src := ls.RecordLines()
		defer src.Close()
		for {
			line, err := src.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if isLineError(err) {
					continue
				}
				ls.err = err
				return
			}
			win = appendWindow(win, line)
			ls.size += int64(len(line))
		}
		ls.tail = win
	})
	return ls.size, ls.tail, ls.err
}

// fingerprint: the files the log is read from (LogStore.StateFiles); a
// segment's mtime is also its view's (segments/<file>).
func (s *logSource) fingerprint() (fingerprint, error) {
	var key strings.Builder
	fp := fingerprint{mtimes: map[string]time.Time{}, stamps: map[string]storedFile{}}
	files, err := s.store.StateFiles()
	if err != nil {
		return fp, err
	}
	for _, f := range files {
		fmt.Fprintf(&key, "%s %d %d %d;", f.Segment, f.Info.Size(), f.Info.ModTime().UnixNano(), inodeOf(f.Info))
		if stamp, ok := storedFileOfInfo(f.Info); ok {
			fp.stamps[f.Segment] = stamp
		}
		if f.Info.ModTime().After(fp.mtimes[""]) {
			fp.mtimes[""] = f.Info.ModTime()
		}
		if f.Segment != "" {
			fp.mtimes[segmentsView+"/"+f.Segment] = f.Info.ModTime()
		}
	}
	fp.key = key.String()
	return fp, nil
}

func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

func (s *logSource) snapshot() (*sharedSnapshot, *logSnapshot, error) {
	shared, err := s.cache.acquire()
	if err != nil {
		return nil, nil, err
	}
	return shared, shared.snap.(*logSnapshot), nil
}

// segments lists the segment files the latest snapshot can show
// (manifest order: sealed, then active; missing ones left out).
func (s *logSource) segments() ([]string, error) {
	shared, snap, err := s.snapshot()
	if err != nil {
		return nil, err
	}
	defer shared.release()
	var names []string
	for _, seg := range snap.Segments() {
		names = append(names, seg.File)
	}
	return names, nil
}

func (s *logSource) nodes() *viewNodes { return &s.views }

// segmentSnapshot is snapshot for the view of one segment: the cached
// snapshot when the two files that view depends on, the manifest (which
// lists the segments) and the segment file, are as its fingerprint saw
// them, else the latest. Each lookup in segments/ then stats two files,
// not every segment (ls -l of a long log's segments/ was quadratic).
func (s *logSource) segmentSnapshot(segment string) (*sharedSnapshot, *logSnapshot, error) {
	if shared := s.cache.current(); shared != nil {
		if s.unchanged(shared.fp, "", segment) {
			return shared, shared.snap.(*logSnapshot), nil
		}
		shared.release()
	}
	return s.snapshot()
}

// unchanged reports whether the state files named (segment names, "" for
// the manifest) stat as fp saw them.
func (s *logSource) unchanged(fp fingerprint, names ...string) bool {
	for _, name := range names {
		want, ok := fp.stamps[name]
		if !ok {
			return false
		}
		f, err := s.store.StateFile(name)
		if err != nil {
			return false
		}
		if got, ok := storedFileOfInfo(f.Info); !ok || got != want {
			return false
		}
	}
	return true
}

func (s *logSource) latest(name string) (viewSnap, error) {
	var shared *sharedSnapshot
	var snap *logSnapshot
	var err error
	segment, isSegment := strings.CutPrefix(name, segmentsView+"/")
	if isSegment {
		shared, snap, err = s.segmentSnapshot(segment)
	} else {
		shared, snap, err = s.snapshot()
	}
	if err != nil {
		return nil, err
	}
	v := &logViewSnap{shared: shared, snap: snap, name: name}
	if name == recordsView {
		size, _, err := snap.records()
		if err != nil {
			shared.release()
			return nil, err
		}
		v.st = viewStat{size: size, mtime: shared.fp.mtime(""), key: shared.fp.key}
		return v, nil
	}
	seg, ok := snap.segment(segment)
	if !isSegment || !ok {
		shared.release()
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	v.segment = seg.File
	v.st = viewStat{size: seg.PayloadBytes, mtime: shared.fp.mtime(name), key: shared.fp.key}
	return v, nil
}

// logViewSnap is records.ndjson or segments/<file> in one snapshot.
type logViewSnap struct {
	shared  *sharedSnapshot
	snap    *logSnapshot
	name    string
	segment string // the segment file ("" for records.ndjson)
	st      viewStat
}

var _ viewSnap = (*logViewSnap)(nil)

func (v *logViewSnap) stat() viewStat { return v.st }
func (v *logViewSnap) retain()        { v.shared.retain() }
func (v *logViewSnap) release()       { v.shared.release() }

func (v *logViewSnap) newReader() (viewReader, error) {
	snap := v.snap
	if v.segment != "" {
		return newStreamReader(func() LineSource { return snap.SegmentLines(v.segment) }, nil), nil
	}
	size, tail, err := snap.records()
	if err != nil {
		return nil, err
	}
	return newStreamReader(func() LineSource { return snap.RecordLines() }, isLineError).withTail(tail, size), nil
}

func (v *logViewSnap) extendsKnown(prev viewSnap) bool {
	p, ok := prev.(*logViewSnap)
	switch {
	case !ok || p.name != v.name:
		return false
	case v.segment != "":
		return v.snap.SegmentExtends(p.snap.LogSnapshot, v.segment)
	}
	return v.snap.RecordsExtend(p.snap.LogSnapshot)
}

// isLineError: RecordLines reports an undecodable line and leaves it out.
func isLineError(err error) bool { return errors.Is(err, ErrSkippedLine) }

// segment finds the segment file among the snapshot's segments, by an
// index made once per snapshot: a lookup of each segment of a long log
// must not list them all again.
func (ls *logSnapshot) segment(file string) (LogSegment, bool) {
	ls.segmentsOnce.Do(func() {
		segs := ls.Segments()
		ls.segments = make(map[string]LogSegment, len(segs))
		for _, seg := range segs {
			if _, dup := ls.segments[seg.File]; !dup { // a file listed twice: the first
				ls.segments[seg.File] = seg
			}
		}
	})
	seg, ok := ls.segments[file]
	return seg, ok
}
