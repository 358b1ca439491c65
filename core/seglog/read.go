package seglog

import (
	"errors"
	"os"
	"strconv"

	"github.com/storhfs/storhfs/core/uuidv7"
)

// errStopStream ends a stream early from inside the callback.
var errStopStream = errors.New("seglog: stop stream")

// Get returns the live record id, or nil (docs/format/segmentedlog.md §4.2). Only the state index
// is consulted, as in PHP.
func (l *Log) Get(id string) (*Record, error) {
	if !uuidv7.Valid(id) {
		return nil, uuidv7.ErrInvalid
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.get(id)
}

// get reads the put line the state index holds for id and checks it
// (docs/format/segmentedlog.md §4.2); nil when id is not live.
func (v *view) get(id string) (*Record, error) {
	loc, ok := v.state.lookup([]byte(id))
	if !ok || loc.deleted {
		return nil, nil
	}
	f, release, err := v.openSegment(v.segs.names[loc.seg], loc.seg)
	if err != nil {
		return nil, err
	}
	defer release()
	sc := newLineScanner(f, loc.off, -1, make([]byte, 512))
	line, _, ok := sc.line()
	if !ok || sc.Err() != nil {
		return nil, ErrReadRecord
	}
	payload, err := frameFull(line)
	if err != nil {
		return nil, err
	}
	env, err := decodeEnvelope(payload)
	if err != nil {
		return nil, err
	}
	if env.id != id || env.op != opPut {
		return nil, ErrWrongRecord
	}
	return &Record{ID: id, Data: recordData(env.data)}, nil
}

// Stream calls fn for each live record in storh's stream order (docs/format/segmentedlog.md §4.3):
// segments in manifest order, lines in file order, each live id at its
// latest put. fn returning an error stops the stream with that error.
func (l *Log) Stream(q StreamQuery, fn func(Record) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.refreshManifest(); err != nil {
		return err
	}
	err := l.streamLocked(&q, fn)
	if err == errStopStream {
		return nil
	}
	return err
}

// streamLocked streams the view's segments (docs/format/segmentedlog.md §4.3, §4.4).
func (l *view) streamLocked(q *StreamQuery, fn func(Record) error) error {
	yielded := 0
	seekID, hasSeek := q.seekID()
	for _, e := range l.man.segments() {
		seg := l.segs.id(e.file)
		// Bounds from this instance's scan stats when it has them, else
		// from the manifest entry.
		known, ordered, min, max := e.hasMin, e.ordered, e.min, e.max
		if st := l.stats[seg]; st != nil {
			known, ordered, min, max = st.records > 0, st.ordered, st.min(), st.max()
		}
		if known && q.skipSegment(min, max) {
			continue
		}
		var start int64
		if hasSeek && e.hasIndex && ordered && known && min < seekID {
			start = seekOffset(l.segDir+"/"+e.index, seekID)
		}
		f, release, err := l.openSegment(e.file, seg)
		if err != nil {
			return err
		}
		stop, err := l.streamSegment(f, e.file, seg, start, ordered, q, fn, &yielded)
		release()
		if err != nil {
			return err
		}
		if stop {
			return nil
		}
	}
	return nil
}

// plainID reports whether a raw JSON string body decodes to itself: no
// '\\', '"' or control byte.
func plainID(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return true
}

// streamSegment streams one segment from start; stop reports the limit.
func (l *view) streamSegment(f *os.File, file string, seg int32, start int64, ordered bool, q *StreamQuery, fn func(Record) error, yielded *int) (bool, error) {
	sc := newLineScanner(f, start, l.readLimit(seg), l.buf)
	for {
		line, off, ok := sc.line()
		if !ok {
			break
		}
		payload, err := frameFull(line)
		var env envelope
		decoded := false
		if err == nil && !q.strict {
			// A canonical line whose raw id needs no unescaping can be
			// ruled out before decoding: tombstones, superseded lines and
			// ids outside the query's bounds are never yielded. A put that
			// is kept needs only its data decoded, and its id (the raw
			// one) has passed the upper bound, state and id checks below.
			if op, idB, data, ok := fastEnvelope(payload); ok && plainID(idB) && !tooDeepForPHP(payload) {
				if ordered && q.hasUpper && string(idB) > q.upper {
					break
				}
				if op != opPut || !q.matchIDBytes(idB) || !l.state.isCurrent(idB, seg, off) {
					continue
				}
				env, decoded = decodeCanonicalPut(idB, data)
			}
		}
		if err == nil && !decoded {
			env, err = decodeEnvelope(payload)
		}
		if err != nil {
			if q.ContinueOnError != nil {
				q.ContinueOnError(file+":"+strconv.FormatInt(off, 10), err)
				continue
			}
			return false, err
		}
		if !decoded && ordered && q.hasUpper && env.id > q.upper {
			break
		}
		// A fast-path line was checked against a full index above; a
		// sequential one is re-checked against the replay's validation.
		if (!decoded || l.state.sequential) && !l.isCurrentLine(line, env.id, seg, off) {
			continue
		}
		if !uuidv7.Valid(env.id) {
			return false, uuidv7.ErrInvalid
		}
		if !decoded && !q.matchIDBytes([]byte(env.id)) {
			continue
		}
		data := recordData(env.data)
		if !q.matchData(data) {
			continue
		}
		if err := fn(Record{ID: env.id, Data: data}); err != nil {
			return false, err
		}
		*yielded++
		if q.limit > 0 && *yielded >= q.limit {
			return true, nil
		}
	}
	return false, sc.Err()
}

// isCurrentLine reports whether the line at (seg, off), whose full decode
// gave id, is the current location of a live id. A sequential index
// knows every replayed line is current, but for the id the replay's fast
// validation read, which a foreign line's full decode may contradict.
func (l *view) isCurrentLine(line []byte, id string, seg int32, off int64) bool {
	if l.state.sequential {
		_, rid, _, _, err := validateFast(line)
		return err == nil && string(rid) == id
	}
	return l.state.isCurrent([]byte(id), seg, off)
}
