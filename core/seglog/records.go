package seglog

import (
	"fmt"
	"io"

	"github.com/storhfs/storhfs/core/uuidv7"
)

// RecordLines reads the records view (records.ndjson) of a snapshot line
// by line: each live record in stream order as {"id":<id>,"data":<data>}\n
// (data as PHP reads it, encoded like storh). It holds one segment open
// and a fixed read window, whatever the log's size. Not safe for
// concurrent use; each reader is independent.
type RecordLines struct {
	v       *view
	trusted map[int32]bool
	entries []*segEntry
	i       int // next entry to open

	lines *heldLines // the open segment, nil between segments
	seg   int32
	// trust: this segment is the very file (inode; openSegment checks it)
	// the replay found to be canonical puts up to the read limit, ending
	// with "\n" (so storh never rewrites those bytes in place: appends go
	// after them, recovery truncates only past them). Its lines are copied
	// without decoding, after the framing (length, xxh32) is checked again.
	trust bool

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
		if r.lines == nil {
			if err := r.openNext(); err != nil {
				r.Close()
				return nil, err
			}
			continue
		}
		line, payload, off, err := r.lines.next()
		if err == io.EOF {
			r.closeSegment()
			continue
		}
		var out []byte
		emit := false
		if err == nil {
			out, emit, err = r.render(line, payload, off)
		}
		if err != nil {
			if _, skip := err.(*LineError); !skip {
				r.Close()
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
	r.closeSegment()
	r.done = true
	return nil
}

func (r *RecordLines) openNext() error {
	if r.i >= len(r.entries) {
		r.done = true
		return nil
	}
	e := r.entries[r.i]
	r.i++
	r.seg = r.v.segs.id(e.file)
	lines, err := r.v.openLines(e.file, r.seg)
	if err != nil {
		return err
	}
	r.lines = lines
	r.trust = r.trusted[r.seg] && r.v.state.sequential
	if r.i < len(r.entries) {
		// The disk reads the next segment while this one is rendered.
		r.v.willNeed(r.v.segs.id(r.entries[r.i].file))
	}
	return nil
}

func (r *RecordLines) closeSegment() {
	if r.lines != nil {
		r.lines.release()
		r.lines = nil
	}
}

// render is streamSegment's per-line logic for an unfiltered stream,
// with a copy instead of decode/encode for canonical puts.
func (r *RecordLines) render(line, payload []byte, off int64) (out []byte, emit bool, err error) {
	if r.trust {
		if op, id, data, ok := fastEnvelope(payload); ok && op == opPut {
			r.out = appendCanonicalRecord(r.out[:0], id, data)
			return r.out, true, nil
		}
	}
	lineErr := func(err error) error {
		return &LineError{File: r.lines.file, Offset: off, Err: err}
	}
	payload, err = frameFull(line)
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
