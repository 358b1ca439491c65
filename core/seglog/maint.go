package seglog

import "github.com/storhfs/storhfs/core/phpjson"

// Stats is stats() (docs/format/segmentedlog.md §4.5).
type Stats struct {
	Segments int
	Records  int
	Deleted  int
	Bytes    int64
}

// Array is PHP's result shape {"segments","records","deleted","bytes"}.
func (s Stats) Array() *phpjson.Array {
	a := phpjson.NewArray(4)
	a.SetString("segments", int64(s.Segments))
	a.SetString("records", int64(s.Records))
	a.SetString("deleted", int64(s.Deleted))
	a.SetString("bytes", s.Bytes)
	return a
}

// Health is verify()/health(): {"ok","errors","stats"}.
type Health struct {
	OK     bool
	Errors []string
	Stats  Stats
}

// Array is PHP's result shape.
func (h Health) Array() *phpjson.Array {
	errs := phpjson.NewArray(len(h.Errors))
	for _, e := range h.Errors {
		errs.Append(e)
	}
	a := phpjson.NewArray(3)
	a.SetString("ok", h.OK)
	a.SetString("errors", errs)
	a.SetString("stats", h.Stats.Array())
	return a
}

// Stats returns the instance's stats: live and tombstoned ids of its state
// index, manifest entries, and the size of the referenced segment files.
func (l *Log) Stats() (Stats, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.refreshManifest(); err != nil {
		return Stats{}, err
	}
	return l.summary(), nil
}

// Verify is PHP's verify() (docs/format/segmentedlog.md §5.3): no lock, nothing modified.
func (l *Log) Verify() (Health, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.refreshManifest(); err != nil {
		return Health{}, err
	}
	h := Health{Errors: l.verify(), Stats: l.summary()}
	h.OK = len(h.Errors) == 0
	return h, nil
}

// verify is the check part of verify(): a replay with full decode of
// every listed segment (no truncation), compared with the state index,
// then a strict drain of the stream. It returns their errors' texts.
func (v *view) verify() []string {
	errs := []string{}
	fresh := newStateIndex()
	for _, e := range v.man.segments() {
		if _, err := replaySegment(v.segDir+"/"+e.file, v.segs.id(e.file), replayVerify, fresh, 0, v.buf); err != nil {
			errs = append(errs, err.Error())
			break
		}
	}
	if len(errs) == 0 && !fresh.sameAs(v.state) {
		errs = append(errs, ErrStateDrift.Error())
	}
	if err := v.streamLocked(&StreamQuery{strict: true}, func(Record) error { return nil }); err != nil {
		errs = append(errs, err.Error())
	}
	return errs
}

// Repair is PHP's repair(): recover() then {"ok":true,"stats":...}.
func (l *Log) Repair() (*phpjson.Array, error) {
	if err := l.Recover(); err != nil {
		return nil, err
	}
	st, err := l.Stats()
	if err != nil {
		return nil, err
	}
	a := phpjson.NewArray(2)
	a.SetString("ok", true)
	a.SetString("stats", st.Array())
	return a, nil
}
