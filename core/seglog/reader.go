package seglog

import (
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
	"sync"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// Reader reads a log collection (or partition) directory without ever
// modifying it: it opens files read-only, takes no lock and never
// truncates, so it may watch a directory a PHP process is appending to.
// A torn or corrupt line ends that segment's replay at the last valid line
// and is reported in SegmentInfo.
type Reader struct {
	dir string
}

// NewReader returns a Reader of the collection directory dir (the
// directory holding manifest.jsonc).
func NewReader(dir string) *Reader { return &Reader{dir: dir} }

// SegmentInfo describes one manifest-listed segment as a snapshot saw it.
type SegmentInfo struct {
	File         string
	Missing      bool   // listed but absent (or unreadable): skipped
	Size         int64  // bytes seen when replaying
	ValidEnd     int64  // end of the valid prefix; reads stop here
	Lines        int64  // valid lines (puts and tombstones)
	PayloadBytes int64  // size of the valid lines with framing stripped (payload + "\n" each)
	Err          error  // first invalid line (torn or corrupt), nil if none
	Ino          uint64 // the file replayed (0 when unknown)
	// Unterminated: the last valid line has no "\n", so storh may still
	// rewrite it in place (docs/format/segmentedlog.md §2.6).
	Unterminated bool
}

// LineError locates a line that could not be decoded while streaming.
type LineError struct {
	File   string
	Offset int64
	Err    error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Offset, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Snapshot is an immutable view: the manifest, the state index built
// from every valid line, and each segment's valid prefix. Reads through a
// snapshot never go past the prefixes it recorded, so sizes and contents
// agree even while writers append. Safe for concurrent use.
type Snapshot struct {
	v        view
	segments []SegmentInfo
	// replays is each segment's replay, in the order of segments: what
	// SnapshotAfter continues. Never written once the snapshot is built,
	// nor their stats, which a later snapshot may share.
	replays []segReplay

	// recordsSize is the records view's size counted during the replay,
	// valid when recordsExact (see segReplay.recordsBytes).
	recordsSize  int64
	recordsExact bool
	// trusted holds, for a sequential snapshot, each segment whose
	// replayed prefix is all canonical puts with valid ids (see
	// RecordLines).
	trusted map[int32]bool

	fullOnce sync.Once
	full     *view
	fullErr  error
}

// snapshotRetries bounds restarts when a referenced compact-* file vanished
// (a newer compaction's open removed it): the manifest is re-read.
const snapshotRetries = 3

// Snapshot reads the manifest and replays every listed segment.
func (r *Reader) Snapshot() (*Snapshot, error) { return r.SnapshotAfter(nil) }

// SnapshotAfter is Snapshot given an earlier snapshot prev of the same
// directory (nil = none): the segments prev replayed are not read again
// where its replay can be continued (see extend), and the result is what
// Snapshot gives. prev is only read (its views are unchanged, and closing
// either snapshot leaves the other readable); it should still be open, so
// that the segment files it holds keep their inode numbers from being
// reused.
func (r *Reader) SnapshotAfter(prev *Snapshot) (*Snapshot, error) {
	for attempt := 0; ; attempt++ {
		m, err := readManifest(r.dir)
		if err != nil {
			return nil, err
		}
		s, vanished, err := r.snapshotAfter(prev, m)
		if err != nil || !vanished || attempt == snapshotRetries {
			return s, err
		}
		s.Close()
	}
}

// snapshotOf replays the segments m lists; vanished reports a listed
// compact-* file that is missing. The replay first assumes an append-only
// log of increasing ids (a sequential index, no per-id memory, and the
// records view's size counted on the way); the first line contradicting
// that starts it over with a full index. On error nothing stays open.
func (r *Reader) snapshotOf(m *manifest) (*Snapshot, bool, error) {
	s, vanished, err := r.replay(m, newSequentialIndex())
	if err == nil && s.v.state.broken {
		s.Close()
		s, vanished, err = r.replay(m, newStateIndexFor(m))
	}
	if err != nil {
		s.Close()
		return nil, false, err
	}
	return s, vanished, nil
}

// replay replays m's segments into state, keeping them open (see
// heldSegments); it returns early once a sequential state breaks.
func (r *Reader) replay(m *manifest, state *stateIndex) (*Snapshot, bool, error) {
	s := newSnapshot(r.dir+"/"+segmentsDirName, m, newSegTable(), state)
	buf := make([]byte, scanBufSize)
	vanished := false
	for _, e := range m.segments() {
		seg := s.v.segs.id(e.file)
		f, res, err := openReplay(s.v.segDir+"/"+e.file, seg, state, buf)
		if err != nil {
			return s, false, err
		}
		if state.broken {
			if f != nil {
				f.release()
			}
			return s, false, nil
		}
		vanished = s.add(e.file, seg, f, res) || vanished
	}
	return s, vanished, nil
}

// newSnapshot is an empty snapshot of m whose replay goes into segs and
// state.
func newSnapshot(segDir string, m *manifest, segs *segTable, state *stateIndex) *Snapshot {
	s := &Snapshot{recordsExact: state.sequential, trusted: map[int32]bool{}}
	s.v = view{
		segDir: segDir,
		man:    m,
		segs:   segs,
		state:  state,
		stats:  map[int32]*segStats{},
		limits: map[int32]int64{},
		held:   newHeldSegments(),
	}
	return s
}

// openReplay opens segment path and replays it from the start into
// state. A file that cannot be opened is missing (f nil); on error f is
// closed.
func openReplay(path string, seg int32, state *stateIndex, buf []byte) (f *heldFile, res segReplay, err error) {
	of, err := fsutil.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, segReplay{stats: newSegStats(0), missing: true, recordsExact: true}, nil
	}
	if res, err = replayFile(of, seg, replayRead, state, 0, buf, -1); err != nil {
		of.Close()
		return nil, res, err
	}
	res.tail = readTail(of, res.stats.end)
	return newHeldFile(of), res, nil
}

// add appends segment file's replay res to s, which from then on holds
// f (nil when missing). vanished reports a missing compact-* file.
func (s *Snapshot) add(file string, seg int32, f *heldFile, res segReplay) (vanished bool) {
	if f != nil && !s.v.held.keep(seg, f, res) {
		f.release() // beyond the held bound
	}
	info := SegmentInfo{File: file, Missing: res.missing}
	if res.missing {
		vanished = strings.HasPrefix(file, "compact-")
		s.v.limits[seg] = 0
	} else {
		info.Size, info.ValidEnd, info.Lines = res.size, res.stats.end, res.stats.records
		info.PayloadBytes, info.Err = res.payloadBytes, res.bad
		info.Ino, info.Unterminated = res.ino, res.unterminated
		s.v.stats[seg] = res.stats
		s.v.limits[seg] = res.stats.end
		s.recordsSize += res.recordsBytes
		s.recordsExact = s.recordsExact && res.recordsExact
		if s.v.state.sequential && res.recordsExact && res.ino != 0 && !res.unterminated {
			s.trusted[seg] = true
		}
	}
	s.segments = append(s.segments, info)
	s.replays = append(s.replays, res)
	return vanished
}

// Close releases the segment files the snapshot holds open. Reads after
// Close fail (or reopen by name a segment past the held bound).
func (s *Snapshot) Close() error {
	if s != nil && s.v.held != nil {
		s.v.held.close()
	}
	return nil
}

// fullView is the snapshot's view with a full state index: the view
// itself, or, for a sequential snapshot, one whose index is built (once)
// by replaying the same valid prefixes. Get and Verify need it.
func (s *Snapshot) fullView() (*view, error) {
	if !s.v.state.sequential {
		return &s.v, nil
	}
	s.fullOnce.Do(func() {
		full := s.v
		full.state = newStateIndexFor(s.v.man)
		buf := make([]byte, scanBufSize)
		for _, e := range s.v.man.segments() {
			seg := s.v.segs.id(e.file)
			if s.v.readLimit(seg) == 0 {
				continue // missing when replayed, or empty
			}
			f, release, err := s.v.openSegment(e.file, seg)
			if err == nil {
				_, err = replayFile(f, seg, replayRead, full.state, 0, buf, s.v.readLimit(seg))
				release()
			}
			if err != nil {
				s.fullErr = err
				return
			}
		}
		s.full = &full
	})
	return s.full, s.fullErr
}

// Segments lists the manifest's segments in logical order (sealed, then
// the active one).
func (s *Snapshot) Segments() []SegmentInfo { return append([]SegmentInfo(nil), s.segments...) }

// scanView is a copy of the view with its own scan buffer.
func (s *Snapshot) scanView() *view {
	v := s.v
	v.buf = make([]byte, scanBufSize)
	return &v
}

// Get returns the live record id, or nil.
func (s *Snapshot) Get(id string) (*Record, error) {
	v, err := s.fullView()
	if err != nil {
		return nil, err
	}
	return v.get(id)
}

// SegmentLines starts a pass over the payload of each valid line of
// segment file (up to the snapshot's valid prefix), with "\n" appended and
// the framing (length, checksum, CR) stripped.
func (s *Snapshot) SegmentLines(file string) *SegmentLines {
	return &SegmentLines{s: s, file: file}
}

// SegmentLines is one pass over a segment's lines (Snapshot.SegmentLines).
// It is pulled (Next), not an iterator a caller would pull through
// iter.Pull: a coroutine must be resumed by goroutines locked to their
// thread as its creator was, and a mount answers requests on both kinds.
type SegmentLines struct {
	s     *Snapshot
	file  string
	lines *heldLines // open segment; nil before the first Next and after the end
	out   []byte
	done  bool
}

// Next returns the next line, reused by the following call; io.EOF at the
// end. An error ends the pass.
func (r *SegmentLines) Next() ([]byte, error) {
	if r.done {
		return nil, io.EOF
	}
	if r.lines == nil {
		seg, ok := r.s.v.segs.lookup(r.file)
		if !ok {
			r.done = true
			return nil, fmt.Errorf("segment %s is not in the manifest: %w", r.file, os.ErrNotExist)
		}
		lines, err := r.s.scanView().openLines(r.file, seg)
		if err != nil {
			r.done = true
			return nil, err
		}
		r.lines = lines
	}
	_, payload, _, err := r.lines.next()
	if err != nil {
		r.Close()
		return nil, err
	}
	r.out = append(append(r.out[:0], payload...), '\n')
	return r.out, nil
}

// Close ends the pass, releasing the segment file.
func (r *SegmentLines) Close() error {
	r.done = true
	if r.lines != nil {
		r.lines.release()
		r.lines = nil
	}
	return nil
}

// All ranges over the pass's lines (for callers in one goroutine), closing
// it at the end or when the loop stops.
func (r *SegmentLines) All() iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		defer r.Close()
		for {
			line, err := r.Next()
			if err == io.EOF || !yield(line, err) || err != nil {
				return
			}
		}
	}
}

// appendRecordLine renders {"id":<id>,"data":<data>}\n.
func appendRecordLine(dst []byte, r Record) ([]byte, error) {
	dst = append(dst, `{"id":`...)
	var err error
	if dst, err = phpjson.AppendString(dst, r.ID); err != nil {
		return nil, err
	}
	dst = append(dst, `,"data":`...)
	if dst, err = phpjson.AppendEncode(dst, r.Data); err != nil {
		return nil, err
	}
	return append(dst, '}', '\n'), nil
}
