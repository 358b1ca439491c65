package seglog

import (
	"bytes"
	"fmt"
	"io"
	"iter"

	"github.com/storhfs/storhfs/core/uuidv7"
)

// RecordLines reads the records view (records.ndjson) of a snapshot line
// by line: each live record in stream order as {"id":<id>,"data":<data>}\n
// (data as PHP reads it, encoded like storh). It holds one segment open
// and a fixed read window, whatever the log's size. Not safe for
// concurrent use; each reader is independent.
type RecordLines struct {
	v       *view
	trusted map[int32]uint64
	entries []*segEntry
	i       int // next entry to open

	release func() // of the open segment
	file    string
	seg     int32
	sc      *lineScanner
	// trust: this segment is the very file (inode) the replay found to be
	// canonical puts up to the read limit, ending with "\n" (so storh
	// never rewrites those bytes in place: appends go after them, recovery
	// truncates only past them). Its lines are copied without decoding,
	// after the framing (length, xxh32) is checked again.
	trust   bool
	tail    segTail // the segment's unterminated last line, if hasTail
	hasTail bool

	out   []byte
	canon canonChecker
	done  bool
}

// RecordLines starts a pass over the records view.
func (s *Snapshot) RecordLines() *RecordLines {
	return &RecordLines{v: s.scanView(), entries: s.v.man.segments(), trusted: s.trusted}
}

// KnownRecordsSize is the records view's size when the replay could count
// it: an append-only log (no overwrite, no tombstone, increasing ids)
// whose lines are canonical puts. Otherwise ok is false (the size is
// then one pass over RecordLines).
func (s *Snapshot) KnownRecordsSize() (int64, bool) {
	return s.recordsSize, s.v.state.sequential && s.recordsExact
}

// Next returns the next line, reused by the following call. At the end it
// returns io.EOF. A line that cannot be decoded (live or not: the state
// cannot tell before decoding) is reported as a *LineError and left out;
// reading may go on. Any other error ends the pass, among them
// *SegmentChangedError when bytes the snapshot replayed changed since.
func (r *RecordLines) Next() ([]byte, error) {
	for !r.done {
		if r.sc == nil {
			if err := r.openNext(); err != nil {
				r.finish()
				return nil, err
			}
			continue
		}
		line, off, ok := r.sc.line()
		if !ok {
			err := r.sc.Err()
			r.closeSegment()
			if err != nil {
				r.finish()
				return nil, err
			}
			continue
		}
		out, emit, err := r.render(line, off)
		if err != nil {
			if _, skip := err.(*LineError); !skip {
				r.finish()
			}
			return nil, err
		}
		if emit {
			return out, nil
		}
	}
	return nil, io.EOF
}

// Close ends the pass.
func (r *RecordLines) Close() error {
	r.finish()
	return nil
}

func (r *RecordLines) finish() {
	r.closeSegment()
	r.done = true
}

func (r *RecordLines) openNext() error {
	if r.i >= len(r.entries) {
		r.done = true
		return nil
	}
	e := r.entries[r.i]
	r.i++
	seg := r.v.segs.id(e.file)
	f, release, err := r.v.openSegment(e.file, seg)
	if err != nil {
		return err
	}
	r.release, r.file, r.seg = release, e.file, seg
	ino, ok := r.trusted[r.seg]
	r.trust = ok && r.v.state.sequential && inodeOf(f) == ino
	r.tail, r.hasTail = r.v.tailOf(seg)
	r.sc = newLineScanner(f, 0, r.v.readLimit(r.seg), r.v.buf)
	if r.i < len(r.entries) {
		// The disk reads the next segment while this one is rendered.
		r.v.willNeed(r.v.segs.id(r.entries[r.i].file))
	}
	return nil
}

func (r *RecordLines) closeSegment() {
	if r.release != nil {
		r.release()
	}
	r.release, r.sc = nil, nil
}

// render is streamSegment's per-line logic for an unfiltered stream,
// with a copy instead of decode/encode for canonical puts.
func (r *RecordLines) render(line []byte, off int64) (out []byte, emit bool, err error) {
	// The replay validated every line below the read limit with the fast
	// validator: a line failing it now was rewritten under the snapshot.
	if _, err := frameFast(line); err != nil {
		return nil, false, &SegmentChangedError{File: r.file, Offset: off}
	}
	if r.hasTail {
		if err := r.tail.check(r.file, off, line); err != nil {
			return nil, false, err
		}
	}
	if r.trust {
		if out, ok := r.renderTrusted(line); ok {
			return out, true, nil
		}
	}
	lineErr := func(err error) error {
		return &LineError{File: r.file, Offset: off, Err: err}
	}
	payload, err := frameFull(line)
	if err != nil {
		return nil, false, lineErr(err)
	}
	var env envelope
	decoded := false
	if op, idB, data, ok := fastEnvelope(payload); ok && plainID(idB) {
		if op != opPut || !r.v.state.isCurrent(idB, r.seg, off) {
			return nil, false, nil
		}
		if r.canon.check(data) {
			if !validIDBytes(idB) {
				return nil, false, uuidv7.ErrInvalid
			}
			r.out = appendCanonicalRecord(r.out[:0], idB, data)
			return r.out, true, nil
		}
		env, decoded = decodeCanonicalPut(idB, data)
	}
	if !decoded {
		if env, err = decodeEnvelope(payload); err != nil {
			return nil, false, lineErr(err)
		}
		if !r.v.isCurrentLine(line, env.id, r.seg, off) {
			return nil, false, nil
		}
	}
	if !validIDBytes([]byte(env.id)) {
		return nil, false, uuidv7.ErrInvalid
	}
	rec := Record{ID: env.id, Data: recordData(env.data)}
	if r.out, err = appendRecordLine(r.out[:0], rec); err != nil {
		return nil, false, &LineError{Err: fmt.Errorf("record %s: %w", rec.ID, err)}
	}
	return r.out, true, nil
}

// renderTrusted renders a line of a trusted segment whose framing render
// has checked: a canonical put
// "<len>\t<xxh32>\t{"op":"put","id":"<id>","data":<data>}" + optional "\n".
// ok is false if the line does not have that shape after all (then render
// goes the checked way).
func (r *RecordLines) renderTrusted(line []byte) ([]byte, bool) {
	t1 := bytes.IndexByte(line, '\t')
	if t1 < 0 {
		return nil, false
	}
	t2 := bytes.IndexByte(line[t1+1:], '\t')
	if t2 < 0 {
		return nil, false
	}
	payload := line[t1+1+t2+1:]
	if n := len(payload); n > 0 && payload[n-1] == '\n' {
		payload = payload[:n-1]
	}
	op, id, data, ok := fastEnvelope(payload)
	if !ok || op != opPut {
		return nil, false
	}
	r.out = appendCanonicalRecord(r.out[:0], id, data)
	return r.out, true
}

// Records yields every live record in stream order as the canonical line
// {"id":<id>,"data":<data>}\n (data as PHP reads it, encoded like storh).
// A line that cannot be decoded (live or not: the state cannot tell before
// decoding) is yielded as (nil, *LineError) and skipped; iteration goes
// on. The line slice is reused between yields. RecordLines is the same
// without a callback.
func (s *Snapshot) Records() iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		r := s.RecordLines()
		defer r.Close()
		for {
			line, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(line, err) {
				return
			}
		}
	}
}
