package seglog

import (
	"bytes"
	"io"
	"os"

	"storhfs/core/fsutil"
	"storhfs/core/phpjson"
	"storhfs/core/uuidv7"
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
// of at most bulkFlushBytes, rolling when a segment's end reaches the
// limit. State and stats are updated once a chunk is durable.
//
// A roll runs while the lines of the next segment are encoded: they go to
// buf only, at offsets from 0 (the new segment is created empty), and
// nothing is written to the new segment before the roll's manifest is in
// place (finishRoll). The files and their order are those of a roll done
// before encoding on.
type appender struct {
	l       *Log
	a       *activeSegment // nil while a roll is pending
	base    int64          // file offset of buf[0]
	buf     []byte
	pending []pendingLine // the lines of buf
	spare   []pendingLine // the other pending slice, given back once applied
	payload []byte
	rolling *pendingRoll
}

// pendingRoll is a roll whose files are being written: the sealed
// segment's fsync (synced applies its last lines to the state index once
// durable) and the plan's idx file and manifest temp file.
type pendingRoll struct {
	plan   *rollPlan
	synced func() error
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
// a valid final line gets its "\n", an invalid fragment is truncated away.
// It returns the new size.
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
	if _, _, _, verr := validateFast(frag); verr == nil {
		if _, err := a.f.WriteAt([]byte{'\n'}, size); err != nil {
			return size, err
		}
		if a.stats != nil && a.stats.end == size {
			a.stats.end++
		}
		return size + 1, nil
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

// add appends one line; it may flush and roll.
func (ap *appender) add(op opKind, id string, payload []byte) error {
	off := ap.base + int64(len(ap.buf))
	ap.buf = AppendLine(ap.buf, payload)
	return ap.added(op, id, off)
}

// added records the line just appended to buf at offset off; it may flush
// and roll.
func (ap *appender) added(op opKind, id string, off int64) error {
	ap.pending = append(ap.pending, pendingLine{id: id, op: op, off: off})
	end := ap.base + int64(len(ap.buf))
	if end >= ap.l.opts.MaxSegmentBytes {
		return ap.flushAndRoll()
	}
	if len(ap.buf) >= bulkFlushBytes {
		return ap.flush()
	}
	return nil
}

// flushAndRoll flushes the full segment and starts sealing it. The
// segment's fsync runs while the roll writes the idx file, creates the
// next segment and writes the manifest's temp file, and while the caller
// encodes the next lines; the manifest's rename, which seals the segment,
// waits for all of them (finishRoll), as with sequential steps.
func (ap *appender) flushAndRoll() error {
	if ap.a == nil {
		// The lines encoded during a roll fill the next segment.
		if rebased, err := ap.resume(); err != nil || rebased {
			return err // re-added lines rolled where they reach the limit now
		}
	}
	synced, err := ap.flushStart()
	if err != nil {
		return err
	}
	plan, planErr := ap.l.prepareRoll()
	if planErr != nil || plan == nil {
		if err := synced(); err != nil {
			return err
		}
		if planErr != nil {
			return planErr
		}
		return ap.reopen()
	}
	ap.rolling = &pendingRoll{plan: plan, synced: synced}
	ap.a, ap.base = nil, 0
	return nil
}

// finishRoll completes a pending roll: the sealed segment's lines are
// durable and applied, the idx and manifest temp files are written, and
// the manifest is renamed into place. The new segment is then the active
// one, not yet opened for appending (resume).
func (ap *appender) finishRoll() error {
	r := ap.rolling
	if r == nil {
		return nil
	}
	ap.rolling = nil
	if err := r.synced(); err != nil {
		r.plan.abort(ap.l)
		return err
	}
	return ap.l.commitRoll(r.plan)
}

// resume finishes a pending roll and opens the new active segment
// (beginAppend). Lines encoded meanwhile assumed an empty segment; if it
// is not (a writer ignored the lock), they are added again after its end
// (rebased), with the usual flushes and rolls, which may leave another
// roll pending.
func (ap *appender) resume() (rebased bool, err error) {
	if err := ap.finishRoll(); err != nil {
		return false, err
	}
	buf, pending := ap.buf, ap.pending
	if err := ap.reopen(); err != nil {
		return false, err
	}
	if ap.base == 0 {
		return false, nil
	}
	ap.buf, ap.pending, ap.spare = nil, ap.spare[:0], nil
	for i, p := range pending {
		end := int64(len(buf))
		if i+1 < len(pending) {
			end = pending[i+1].off
		}
		off := ap.base + int64(len(ap.buf))
		ap.buf = append(ap.buf, buf[p.off:end]...)
		if err := ap.added(p.op, p.id, off); err != nil {
			return true, err
		}
	}
	return true, nil
}

// ready finishes pending rolls until the appender can write.
func (ap *appender) ready() error {
	for ap.a == nil {
		if _, err := ap.resume(); err != nil {
			return err
		}
	}
	return nil
}

// reopen opens the manifest's active segment for appending at its end.
func (ap *appender) reopen() error {
	next, err := ap.l.beginAppend()
	if err != nil {
		return err
	}
	ap.a, ap.base = next.a, next.base
	return nil
}

// end finishes a pending roll before an append gives up with err (the
// roll was under way; the lines not yet written are dropped, as they are
// when the failure comes before the roll). A failed roll's error wins:
// it happened first.
func (ap *appender) end(err error) error {
	if rerr := ap.finishRoll(); rerr != nil {
		return rerr
	}
	return err
}

// addPut appends a canonical put line for (id, data), a batch row's:
// PHP's appendMany/appendStream encode data alone (encode_put_line), so
// it may nest 512 deep. Put encodes the whole envelope: see addSinglePut.
func (ap *appender) addPut(id string, data *phpjson.Array) error {
	return ap.addPutDepth(id, data, phpjson.DefaultDepth)
}

// addSinglePut appends Put's line: PHP's put() encodes the envelope
// {"op","id","data"} with depth 512 (encode_line), which leaves data 511
// levels; a 512-deep data fails with "Maximum stack depth exceeded".
func (ap *appender) addSinglePut(id string, data *phpjson.Array) error {
	return ap.addPutDepth(id, data, phpjson.DefaultDepth-1)
}

func (ap *appender) addPutDepth(id string, data *phpjson.Array, maxDepth int) error {
	p := append(ap.payload[:0], putPrefix...)
	p = append(p, id...)
	p = append(p, dataInfix...)
	var err error
	if p, err = phpjson.AppendEncodeDepth(p, data, maxDepth); err != nil {
		return err
	}
	p = append(p, '}')
	ap.payload = p
	return ap.add(opPut, id, p)
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
// to the state index and segment stats.
func (ap *appender) flush() error {
	if err := ap.ready(); err != nil {
		return err
	}
	synced, err := ap.flushStart()
	if err != nil {
		return err
	}
	return synced()
}

// flushStart writes the buffered lines with one write and starts their
// fsync. The segment stats take the lines at once (a roll seals them while
// the fsync runs); synced waits for the fsync and then applies the lines to
// the state index. A failed fsync leaves the stats unknown (rescanned at
// the next roll) and the state index without the lines.
func (ap *appender) flushStart() (synced func() error, err error) {
	a := ap.a
	if len(ap.buf) > 0 {
		if _, err := a.f.WriteAt(ap.buf, ap.base); err != nil {
			return nil, &SegmentOpenError{File: a.name, Err: err}
		}
	}
	done := make(chan error, 1)
	go func() { done <- syncFile(a.f) }()
	l := ap.l
	if a.stats != nil {
		for _, p := range ap.pending {
			a.stats.add([]byte(p.id), p.off)
		}
		a.stats.end = ap.base + int64(len(ap.buf))
		l.stats[a.seg] = a.stats
	}
	pending := ap.pending
	ap.pending, ap.spare = ap.spare[:0], nil
	ap.base += int64(len(ap.buf))
	ap.buf = ap.buf[:0]
	return func() error {
		if err := <-done; err != nil {
			a.stats = nil
			delete(l.stats, a.seg)
			return err
		}
		for _, p := range pending {
			l.state.apply([]byte(p.id), p.op, a.seg, p.off)
		}
		ap.spare = pending[:0]
		return nil
	}, nil
}

// syncFile makes appended bytes durable (file data and size).
func syncFile(f *os.File) error { return f.Sync() }

// withLock runs fn under the instance mutex and the collection flock.
func (l *Log) withLock(fn func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.lock.Lock(); err != nil {
		return err
	}
	defer l.lock.Unlock()
	return fn()
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
	err := l.withLock(func() error {
		ap, err := l.beginAppend()
		if err != nil {
			return err
		}
		if err := ap.addSinglePut(id, data); err != nil {
			return ap.end(err)
		}
		return ap.flush()
	})
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
	return l.withLock(func() error {
		ap, err := l.beginAppend()
		if err != nil {
			return err
		}
		if err := ap.addDelete(id); err != nil {
			return ap.end(err)
		}
		return ap.flush()
	})
}

// deleteMany appends tombstones for ids under one lock and fsyncs once per
// chunk (used by retention).
func (l *Log) deleteMany(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return l.withLock(func() error {
		ap, err := l.beginAppend()
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := ap.addDelete(id); err != nil {
				return ap.end(err)
			}
		}
		return ap.flush()
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
	err := l.withLock(func() error {
		ap, err := l.beginAppend()
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := ap.addPut(r.ID, r.Data); err != nil {
				return ap.end(err)
			}
		}
		return ap.flush()
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
	err := l.withLock(func() error {
		ap, err := l.beginAppend()
		if err != nil {
			return err
		}
		for {
			row, ok, err := next()
			if err != nil {
				return ap.end(err)
			}
			if !ok {
				break
			}
			id, data, explicit := rowRecord(row)
			if explicit && !uuidv7.Valid(id) {
				return ap.end(uuidv7.ErrInvalid)
			}
			if id == "" {
				if id, err = l.opts.NewID(); err != nil {
					return ap.end(err)
				}
			}
			if err := ap.addPut(id, data); err != nil {
				return ap.end(err)
			}
			n++
		}
		return ap.flush()
	})
	return n, err
}
