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
	return l.statsLocked()
}

func (l *Log) statsLocked() (Stats, error) {
	if err := l.refreshManifest(); err != nil {
		return Stats{}, err
	}
	return Stats{
		Segments: l.man.entryCount(),
		Records:  l.state.live,
		Deleted:  l.state.deleted,
		Bytes:    segmentBytes(l.segDir, l.man),
	}, nil
}

// Verify is PHP's verify() (docs/format/segmentedlog.md §5.3): no lock, nothing modified.
func (l *Log) Verify() (Health, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var h Health
	if err := l.refreshManifest(); err != nil {
		return h, err
	}
	if err := l.verifyReplay(); err != nil {
		h.Errors = append(h.Errors, err.Error())
	}
	if err := l.streamLocked(&StreamQuery{strict: true}, func(Record) error { return nil }); err != nil {
		h.Errors = append(h.Errors, err.Error())
	}
	st, err := l.statsLocked()
	if err != nil {
		h.Errors = append(h.Errors, err.Error())
		st = Stats{Segments: l.man.entryCount()}
	}
	h.Stats = st
	h.OK = len(h.Errors) == 0
	return h, nil
}

// Health is Verify.
func (l *Log) Health() (Health, error) { return l.Verify() }

// verifyReplay replays with full decode and compares with the state index.
func (l *Log) verifyReplay() error {
	return verifyReplay(l.segDir, l.man, l.segs, l.state, l.buf)
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
