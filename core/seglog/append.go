package seglog

import (
	"bytes"
	"io"
	"os"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// bulkFlushBytes is PHP's bulk-append buffer size (docs/format/segmentedlog.md §3.2).
const bulkFlushBytes = 1 << 20

// activeSegment is the open append handle of the manifest's active file.
type activeSegment struct {
	name  string
	seg   int32
	f     *os.File
	stats *segStats // nil when unknown (lines we did not see): rescan at roll
}

func (l *Log) dropActive() {
	if l.active != nil {
		l.active.f.Close()
		l.active = nil
	}
}

// Record is one log record as PHP returns it.
type Record struct {
	ID   string
	Data *phpjson.Array
}

// appender writes lines to the active segment under the lock, in chunks
// of at most bulkFlushBytes, in PHP's order (docs/format/segmentedlog.md §3.2): a chunk is written
// and fsynced, its lines are then applied to the state index and segment
// stats, and a segment whose end reached the limit is rolled before the
// next line is written to the new active segment.
type appender struct {
	l       *Log
	a       *activeSegment
	base    int64 // file offset of buf[0]
	buf     []byte
	pending []pendingLine // the lines of buf
	payload []byte
}

type pendingLine struct {
	id  string
	op  opKind
	off int64
}

// beginAppend opens the active file named by a fresh manifest and makes
// its tail safe to append to (docs/format/segmentedlog.md §3.1 step 3).
func (l *Log) beginAppend() (*appender, error) {
	if err := l.refreshManifest(); err != nil {
		return nil, err
	}
	if l.active == nil {
		name := l.man.activeFile()
		f, err := fsutil.OpenFile(l.segDir+"/"+name, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return nil, &SegmentOpenError{File: name, Err: err}
		}
		seg := l.segs.id(name)
		l.active = &activeSegment{name: name, seg: seg, f: f, stats: l.stats[seg]}
	}
	a := l.active
	size, err := a.f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	if size, err = l.repairTail(a, size); err != nil {
		return nil, err
	}
	if a.stats != nil && a.stats.end != size {
		a.stats = nil // another writer appended: rescan at roll
	}
	return &appender{l: l, a: a, base: size}, nil
}

// repairTail handles a non-empty active file whose last byte is not "\n":
// a valid final line gets its "\n", an invalid fragment is truncated away;
// either change is fsynced. It returns the new size.
func (l *Log) repairTail(a *activeSegment, size int64) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := a.f.ReadAt(last[:], size-1); err != nil {
		return size, err
	}
	if last[0] == '\n' {
		return size, nil
	}
	start, frag, err := lastFragment(a.f, size)
	if err != nil {
		return size, err
	}
	if _, _, _, _, verr := validateFast(frag); verr == nil {
		if _, err := a.f.WriteAt([]byte{'\n'}, size); err != nil {
			return size, err
		}
		if a.stats != nil && a.stats.end == size {
			a.stats.end++
		}
		return size + 1, a.f.Sync()
	}
	if err := a.f.Truncate(start); err != nil {
		return size, err
	}
	if a.stats != nil && a.stats.end > start {
		a.stats = nil
	}
	return start, a.f.Sync()
}

// lastFragment returns the start and bytes of the text after the last
// "\n" of a file of the given size (bounded by MaxLineBytes).
func lastFragment(f *os.File, size int64) (int64, []byte, error) {
	const chunk = 4096
	var tail []byte
	pos := size
	for pos > 0 && int64(len(tail)) <= MaxLineBytes {
		n := int64(chunk)
		if n > pos {
			n = pos
		}
		b := make([]byte, n)
		if _, err := f.ReadAt(b, pos-n); err != nil && err != io.EOF {
			return 0, nil, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			start := pos - n + int64(i) + 1
			return start, append(b[i+1:], tail...), nil
		}
		tail = append(b, tail...)
		pos -= n
	}
	return pos, tail, nil
}

// add appends one line to buf. A segment whose end reaches the limit is
// flushed and rolled; a full buffer is flushed.
func (ap *appender) add(op opKind, id string, payload []byte) error {
	off := ap.base + int64(len(ap.buf))
	ap.buf = AppendLine(ap.buf, payload)
	ap.pending = append(ap.pending, pendingLine{id: id, op: op, off: off})
	if ap.base+int64(len(ap.buf)) >= ap.l.opts.MaxSegmentBytes {
		return ap.flushAndRoll()
	}
	if len(ap.buf) >= bulkFlushBytes {
		return ap.flush()
	}
	return nil
}

// flushAndRoll flushes the full segment, seals it (rollLocked) and opens
// the new active segment for the lines that follow.
func (ap *appender) flushAndRoll() error {
	if err := ap.flush(); err != nil {
		return err
	}
	if err := ap.l.rollLocked(); err != nil {
		return err
	}
	next, err := ap.l.beginAppend()
	if err != nil {
		return err
	}
	ap.a, ap.base = next.a, next.base
	return nil
}

// addPut appends a canonical put line for (id, data), its data encoded at
// most maxDepth deep: PHP's appendMany/appendStream encode data alone
// (encode_put_line), so it may nest phpjson.DefaultDepth deep; put()
// encodes the envelope {"op","id","data"} (encode_line), which leaves data
// one level less, and a deeper one fails with "Maximum stack depth
// exceeded".
func (ap *appender) addPut(id string, data *phpjson.Array, maxDepth int) error {
	p, err := appendPutPayload(ap.payload[:0], id, data, maxDepth)
	if err != nil {
		return err
	}
	ap.payload = p
	return ap.add(opPut, id, p)
}

// appendPutPayload appends the canonical put payload {"op":"put","id":..,"data":..}.
func appendPutPayload[T string | []byte](dst []byte, id T, data *phpjson.Array, maxDepth int) ([]byte, error) {
	dst = append(dst, putPrefix...)
	dst = append(dst, id...)
	dst = append(dst, dataInfix...)
	dst, err := phpjson.AppendEncodeDepth(dst, data, maxDepth)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// addDelete appends a canonical delete line for id.
func (ap *appender) addDelete(id string) error {
	p := append(ap.payload[:0], deletePrefix...)
	p = append(p, id...)
	p = append(p, '"', '}')
	ap.payload = p
	return ap.add(opDelete, id, p)
}

// flush writes the buffered lines with one write, fsyncs, and applies them
// to the state index and segment stats. A failed fsync leaves the stats
// unknown (rescanned at the next roll) and the state index without the
// lines. An empty buffer writes nothing.
func (ap *appender) flush() error {
	if len(ap.buf) == 0 {
		return nil
	}
	a, l := ap.a, ap.l
	if _, err := a.f.WriteAt(ap.buf, ap.base); err != nil {
		return &SegmentOpenError{File: a.name, Err: err}
	}
	if err := a.f.Sync(); err != nil {
		a.stats = nil
		delete(l.stats, a.seg)
		return err
	}
	for _, p := range ap.pending {
		if a.stats != nil {
			a.stats.add([]byte(p.id), p.off)
		}
		l.state.apply([]byte(p.id), p.op, a.seg, p.off)
	}
	ap.base += int64(len(ap.buf))
	if a.stats != nil {
		a.stats.end = ap.base
		l.stats[a.seg] = a.stats
	}
	ap.buf, ap.pending = ap.buf[:0], ap.pending[:0]
	return nil
}

// withLock runs fn under the instance mutex and the collection flock; a
// failed release of the flock is reported with fn's error.
func (l *Log) withLock(fn func() error) (err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.lock.Lock(); err != nil {
		return err
	}
	defer l.lock.UnlockInto(&err)
	return fn()
}

// appendLocked runs fill with an appender under withLock and flushes what
// it added; lines of a fill that fails stay unwritten but for the chunks
// already flushed.
func (l *Log) appendLocked(fill func(*appender) error) error {
	return l.withLock(func() error {
		ap, err := l.beginAppend()
		if err != nil {
			return err
		}
		if err := fill(ap); err != nil {
			return err
		}
		return ap.flush()
	})
}

// Put appends a put of data under id ("" = generate) with one fsync.
func (l *Log) Put(data *phpjson.Array, id string) (Record, error) {
	if id == "" {
		var err error
		if id, err = l.opts.NewID(); err != nil {
			return Record{}, err
		}
	} else if !uuidv7.Valid(id) {
		return Record{}, uuidv7.ErrInvalid
	}
	if data == nil {
		data = phpjson.NewArray(0)
	}
	err := l.appendLocked(func(ap *appender) error { return ap.addPut(id, data, phpjson.DefaultDepth-1) })
	if err != nil {
		return Record{}, err
	}
	return Record{ID: id, Data: data}, nil
}

// Delete appends a tombstone for id (even if it never existed).
func (l *Log) Delete(id string) error {
	if !uuidv7.Valid(id) {
		return uuidv7.ErrInvalid
	}
	return l.deleteMany([]string{id})
}

// deleteMany appends tombstones for ids under one lock and fsyncs once per
// chunk (Delete, and retention).
func (l *Log) deleteMany(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return l.appendLocked(func(ap *appender) error {
		for _, id := range ids {
			if err := ap.addDelete(id); err != nil {
				return err
			}
		}
		return nil
	})
}

// rowRecord resolves one appendMany/appendStream element (docs/format/segmentedlog.md §3.2): id =
// row.id when it is a string, data = row.data when it is an array, else the
// whole row.
func rowRecord(row phpjson.Value) (id string, data *phpjson.Array, explicit bool) {
	obj, ok := row.(*phpjson.Array)
	if !ok {
		return "", phpjson.NewArray(0), false
	}
	if v, ok := obj.Lookup("id"); ok {
		id, explicit = v.(string)
	}
	if v, ok := obj.Lookup("data"); ok {
		if d, ok := v.(*phpjson.Array); ok {
			return id, d, explicit
		}
	}
	return id, obj, explicit
}

// AppendMany appends every row under one lock (docs/format/segmentedlog.md §3.2). Rows are
// resolved in order before anything is written, as PHP does: a row
// without an id takes the next generated id, an explicit id is validated,
// and the first invalid one fails the batch (the ids generated for the
// rows before it are spent). appendMany([]) takes no lock.
func (l *Log) AppendMany(rows []phpjson.Value) ([]Record, error) {
	recs := make([]Record, len(rows))
	for i, row := range rows {
		id, data, explicit := rowRecord(row)
		if !explicit {
			var err error
			if id, err = l.opts.NewID(); err != nil {
				return nil, err
			}
		} else if !uuidv7.Valid(id) {
			return nil, uuidv7.ErrInvalid
		}
		recs[i] = Record{ID: id, Data: data}
	}
	if len(rows) == 0 {
		return recs, nil
	}
	err := l.appendLocked(func(ap *appender) error {
		for _, r := range recs {
			if err := ap.addPut(r.ID, r.Data, phpjson.DefaultDepth); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// AppendStream appends the rows next yields (ok=false ends) under one lock
// held while iterating, and returns how many were written. Rows are
// validated one by one; chunks already flushed stay on failure.
func (l *Log) AppendStream(next func() (phpjson.Value, bool, error)) (int, error) {
	n := 0
	err := l.appendLocked(func(ap *appender) error {
		for {
			row, ok, err := next()
			if err != nil || !ok {
				return err
			}
			id, data, explicit := rowRecord(row)
			if explicit && !uuidv7.Valid(id) {
				return uuidv7.ErrInvalid
			}
			if id == "" {
				if id, err = l.opts.NewID(); err != nil {
					return err
				}
			}
			if err := ap.addPut(id, data, phpjson.DefaultDepth); err != nil {
				return err
			}
			n++
		}
	})
	return n, err
}
