package queue

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/guard"
	"github.com/storhfs/storhfs/core/phpjson"
)

// View is one read-only file a mounted queue shows.
type View uint8

const (
	// ViewPending: {"id":..,"payload":..} per pending job, in claim order.
	ViewPending View = iota
	// ViewProcessing: {"id":..,"claimed_at":..,"payload":..} in claim order.
	ViewProcessing
	// ViewDone: {"id":..,"completed_at":..} per kept done job.
	ViewDone
	// ViewEvents: the JSON part of every valid queue.log line (guard and CR
	// stripped), LF-terminated.
	ViewEvents
	numViews
)

// Snapshot is a read-only state of queue.log, replayed without the lock and
// never truncating: the valid prefix of the file as it was when read. The
// payloads are not held in memory: each job remembers the offset of its
// enqueue line, which the views re-read through the snapshot's own file
// handle (appends and PHP's truncation of an invalid tail never touch the
// valid prefix). Immutable once returned and safe for concurrent use.
type Snapshot struct {
	f        *os.File
	fi       os.FileInfo // f's stat when read: its identity (device, inode)
	Size     int64       // bytes of queue.log considered (its size when read)
	ValidEnd int64       // end of the valid prefix
	Lines    int         // valid lines
	Invalid  *LineError  // first invalid line; nil when the whole file is valid
	ModTime  time.Time   // queue.log mtime when read
	st       *state
	from     int64     // where the replay started: 0, or the valid end of the snapshot extended
	tail     []byte    // the last (up to tailCheck) bytes of the valid prefix
	events   viewIndex // ViewEvents' index, built by the replay

	mu    sync.Mutex
	index [ViewEvents]*viewIndex // the job views' indexes, built on first use
}

// viewIndex is a view's exact byte size plus checkpoints for ReadAt.
type viewIndex struct {
	size   int64
	points []viewCursor // every checkpointEvery-th line start, ascending
}

// viewCursor is a position in a view: a line start (viewOff) and where that
// line comes from (a job node, or a queue.log offset for ViewEvents).
type viewCursor struct {
	viewOff int64
	j       *job
	fileOff int64
}

const checkpointEvery = 128

// tailCheck is how many bytes before a snapshot's valid end must be
// unchanged for ReadSnapshotAfter to resume there. It catches a log
// rewritten in place to at least its old size, which the format forbids
// (docs/format/queue.md P8) and which identity and size cannot tell.
const tailCheck = 64

// ReadSnapshot replays dir/queue.log without taking the lock. now stands in
// for missing event timestamps (nil = time.Now).
func ReadSnapshot(dir string, now func() time.Time) (*Snapshot, error) {
	return ReadSnapshotAfter(nil, dir, now)
}

// ReadSnapshotAfter is ReadSnapshot given an earlier snapshot prev of the
// same directory (nil = none). While queue.log is the file prev read (same
// device and inode) and still holds prev's valid prefix (it is at least
// that long and the prefix's last tailCheck bytes are unchanged), only the
// bytes after that prefix are replayed, on a copy of prev's state. The
// result is what a full replay gives, since queue.log only grows, apart
// from an invalid tail, which lies past the valid prefix; otherwise (the
// log was replaced, truncated or rewritten) the whole file is replayed.
// prev must be open (its handle keeps its inode from being reused, so the
// same identity is the same file) and is only read: its views are
// unchanged, and closing either snapshot leaves the other readable.
func ReadSnapshotAfter(prev *Snapshot, dir string, now func() time.Time) (*Snapshot, error) {
	if now == nil {
		now = time.Now
	}
	f, err := fsutil.Open(dir + "/" + logName)
	if err != nil {
		return nil, fmt.Errorf("read queue %s: %w", dir, err)
	}
	s, err := readSnapshot(f, prev, now().Unix())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read queue %s: %w", dir, err)
	}
	return s, nil
}

// readSnapshot replays f, from prev's valid end on a copy of prev's state
// when prev.prefixOf(f).
func readSnapshot(f *os.File, prev *Snapshot, now int64) (*Snapshot, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	s := &Snapshot{f: f, fi: fi, Size: fi.Size(), ModTime: fi.ModTime()}
	if prev.prefixOf(f, fi) {
		s.st = prev.st.clone(now)
		s.from, s.ValidEnd, s.Lines = prev.ValidEnd, prev.ValidEnd, prev.Lines
		s.events = viewIndex{size: prev.events.size, points: slices.Clip(prev.events.points)}
	} else {
		s.st = newState()
	}
	res, err := replay(f, s.ValidEnd, s.Size, s.Lines+1, s.st, now, false, func(start int64, json []byte) {
		if s.Lines%checkpointEvery == 0 {
			s.events.points = append(s.events.points, viewCursor{viewOff: s.events.size, fileOff: start})
		}
		s.events.size += int64(len(json)) + 1
		s.Lines++
	})
	if err != nil {
		return nil, err
	}
	s.ValidEnd, s.Invalid = res.end, res.invalid
	s.tail = make([]byte, min(s.ValidEnd, tailCheck))
	if _, err := f.ReadAt(s.tail, s.ValidEnd-int64(len(s.tail))); err != nil {
		return nil, fmt.Errorf("re-read queue.log at offset %d: %w", s.ValidEnd-int64(len(s.tail)), err)
	}
	return s, nil
}

// prefixOf reports whether f, with stat fi, is the file s read and still
// holds s's valid prefix. False for a nil s.
func (s *Snapshot) prefixOf(f *os.File, fi os.FileInfo) bool {
	if s == nil || !os.SameFile(s.fi, fi) || fi.Size() < s.ValidEnd {
		return false
	}
	tail := make([]byte, len(s.tail))
	_, err := f.ReadAt(tail, s.ValidEnd-int64(len(tail)))
	return err == nil && bytes.Equal(tail, s.tail)
}

// Close releases the file handle; views fail afterwards.
func (s *Snapshot) Close() error { return s.f.Close() }

// Counts returns the numbers of pending, processing and done jobs.
func (s *Snapshot) Counts() Counts { return s.st.counts() }

// Each calls fn with every line of view v in order (fn must not keep line).
func (s *Snapshot) Each(v View, fn func(line []byte) error) error {
	it := s.iter(v, s.start(v))
	for {
		line, err := it.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(line); err != nil {
			return err
		}
	}
}

// ViewSize returns the exact byte size of view v.
func (s *Snapshot) ViewSize(v View) (int64, error) {
	idx, err := s.viewIndex(v)
	if err != nil {
		return 0, err
	}
	return idx.size, nil
}

// ReadAt reads view v's bytes at off (io.ReaderAt semantics).
func (s *Snapshot) ReadAt(v View, p []byte, off int64) (int, error) {
	idx, err := s.viewIndex(v)
	if err != nil {
		return 0, err
	}
	if off >= idx.size {
		return 0, io.EOF
	}
	k := sort.Search(len(idx.points), func(i int) bool { return idx.points[i].viewOff > off }) - 1
	cur := s.start(v)
	if k >= 0 {
		cur = idx.points[k]
	}
	it := s.iter(v, cur)
	pos, n := cur.viewOff, 0
	for n < len(p) {
		line, err := it.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		if end := pos + int64(len(line)); end > off {
			skip := max(off-pos, 0)
			n += copy(p[n:], line[skip:])
			off = end
		}
		pos += int64(len(line))
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (s *Snapshot) viewIndex(v View) (*viewIndex, error) {
	switch {
	case v == ViewEvents:
		return &s.events, nil
	case v >= numViews:
		return nil, fmt.Errorf("queue: unknown view %d", v)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index[v] != nil {
		return s.index[v], nil
	}
	// Line lengths come from the state alone (payloadRef.enc): no payload
	// is re-read.
	idx := &viewIndex{}
	var head []byte
	var err error
	for j, lines := s.start(v).j, 0; j != nil; j, lines = j.next, lines+1 {
		if lines%checkpointEvery == 0 {
			idx.points = append(idx.points, viewCursor{viewOff: idx.size, j: j})
		}
		if head, err = appendJobHead(head[:0], v, j); err != nil {
			return nil, err
		}
		idx.size += int64(len(head)) + int64(len("}\n"))
		if v != ViewDone {
			idx.size += int64(j.payload.viewLen())
		}
	}
	s.index[v] = idx
	return idx, nil
}

func (s *Snapshot) start(v View) viewCursor {
	switch v {
	case ViewPending:
		return viewCursor{j: s.st.pending.head}
	case ViewProcessing:
		return viewCursor{j: s.st.processing.head}
	case ViewDone:
		return viewCursor{j: s.st.done.head}
	}
	return viewCursor{}
}

func (s *Snapshot) iter(v View, c viewCursor) *viewIter {
	it := &viewIter{s: s, v: v, j: c.j}
	if v == ViewEvents {
		it.sc = newLineScanner(s.f, c.fileOff, s.ValidEnd)
	}
	return it
}

// viewIter produces a view's lines from a cursor.
type viewIter struct {
	s    *Snapshot
	v    View
	j    *job         // next job (job views)
	sc   *lineScanner // ViewEvents
	line []byte
	raw  []byte
}

func (it *viewIter) next() ([]byte, error) {
	if it.v == ViewEvents {
		return it.nextEvent()
	}
	j := it.j
	if j == nil {
		return nil, io.EOF
	}
	it.j = j.next
	b, err := appendJobHead(it.line[:0], it.v, j)
	if err != nil {
		return nil, err
	}
	if it.v != ViewDone {
		if b, err = it.appendPayload(b, j.payload); err != nil {
			return nil, err
		}
	}
	it.line = append(b, '}', '\n')
	return it.line, nil
}

// appendJobHead appends j's line of job view v up to its payload: all but
// the payload and the closing "}\n".
func appendJobHead(dst []byte, v View, j *job) ([]byte, error) {
	b, err := phpjson.AppendString(append(dst, `{"id":`...), j.id)
	if err != nil {
		return nil, err
	}
	switch v {
	case ViewProcessing:
		b = appendInt(append(b, `,"claimed_at":`...), j.at)
	case ViewDone:
		b = appendInt(append(b, `,"completed_at":`...), j.at)
	}
	if v != ViewDone {
		b = append(b, `,"payload":`...)
	}
	return b, nil
}

func (it *viewIter) nextEvent() ([]byte, error) {
	line, start, err := it.sc.next()
	if err != nil {
		return nil, err
	}
	json, fault := guard.Queue().Parse(line)
	if fault != guard.OK {
		return nil, fmt.Errorf("queue.log changed under the snapshot at offset %d: %w", start, guardError(fault))
	}
	it.line = append(append(it.line[:0], json...), '\n')
	return it.line, nil
}

// appendPayload re-reads the enqueue line that set the payload and appends
// the payload as claimers see it (appendViewPayload).
func (it *viewIter) appendPayload(dst []byte, p payloadRef) ([]byte, error) {
	if !p.present() {
		return append(dst, noPayload...), nil
	}
	if cap(it.raw) < int(p.n) {
		it.raw = make([]byte, p.n)
	}
	raw := it.raw[:p.n]
	if _, err := it.s.f.ReadAt(raw, p.off-1); err != nil {
		return nil, fmt.Errorf("re-read queue.log at offset %d: %w", p.off-1, err)
	}
	_, ev, err := decodeLine(raw)
	if err == nil && ev.Op != OpEnqueue {
		err = errors.New("not an enqueue event")
	}
	if err != nil {
		return nil, fmt.Errorf("queue.log changed under the snapshot at offset %d: %w", p.off-1, err)
	}
	return appendViewPayload(dst, ev.Payload), nil
}

// noPayload is a job view's payload for a job without one.
const noPayload = "[]"

// viewLen is the length of p's payload in a job view.
func (p payloadRef) viewLen() int32 {
	if !p.present() {
		return int32(len(noPayload))
	}
	return p.enc
}

// appendViewPayload appends payload as the job views show it: encoded as
// storh does, or, for a payload storh cannot encode, null plus
// "payload_error":<message>.
func appendViewPayload(dst []byte, payload *phpjson.Array) []byte {
	out, err := phpjson.AppendEncode(dst, payload)
	if err == nil {
		return out
	}
	// PHP decodes 1e999 as INF but cannot encode it: keep the view a valid
	// NDJSON file and say why the payload is missing. phpjson's messages
	// are ASCII, so quoting one cannot fail.
	out, _ = phpjson.AppendString(append(dst, `null,"payload_error":`...), err.Error())
	return out
}

// EventsExtend reports whether s's events view is prev's followed by more
// lines: s read the very file prev read (queue.log is append-only; only an
// invalid tail, past prev's valid prefix, is ever truncated) and its valid
// prefix is at least as long.
func (s *Snapshot) EventsExtend(prev *Snapshot) bool {
	return os.SameFile(prev.fi, s.fi) && s.ValidEnd >= prev.ValidEnd
}
