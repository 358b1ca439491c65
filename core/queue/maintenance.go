package queue

import (
	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// Stats is the stats() result: counts plus the byte size of queue.log (0 when
// it is not a regular file).
type Stats struct {
	Counts
	Bytes int64
}

// Health is the verify()/health() result. Errors has at most one entry.
type Health struct {
	OK     bool
	Errors []string
	Stats  Stats
}

// RepairResult is the repair() result; OK is always true, as in PHP.
type RepairResult struct {
	OK       bool
	Requeued int
}

// Counts returns the numbers of pending, processing and done jobs.
func (q *Queue) Counts() (Counts, error) {
	var c Counts
	err := q.op(func(int64) error {
		c = q.st.counts()
		return nil
	})
	return c, err
}

// Stats returns the counts and the log size.
func (q *Queue) Stats() (Stats, error) {
	var s Stats
	err := q.op(func(int64) error {
		s = Stats{Counts: q.st.counts(), Bytes: fileBytes(q.logPath)}
		return nil
	})
	return s, err
}

// Health is Verify (PHP's health() and verify() are identical).
func (q *Queue) Health() (Health, error) { return q.Verify() }

// Verify replays queue.log from byte 0 through a separate read handle into an
// independent state, then syncs the live state and, when the file replayed
// cleanly, compares the two (docs/format/queue.md §7). It never truncates.
func (q *Queue) Verify() (Health, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var h Health
	err := q.locked(func() error {
		fresh, lineErr, err := q.replayIndependently()
		if err != nil {
			return err
		}
		if err := q.sync(); err != nil {
			return err
		}
		h.Errors = []string{}
		switch {
		case lineErr != nil:
			h.Errors = append(h.Errors, lineErr.Error())
		case fresh != nil && !q.st.equal(fresh):
			h.Errors = append(h.Errors, ErrStateDrift.Error())
		}
		h.OK = len(h.Errors) == 0
		h.Stats = Stats{Counts: q.st.counts(), Bytes: fileBytes(q.logPath)}
		return nil
	})
	return h, err
}

// replayIndependently reads the log by path from byte 0. An unreadable file
// is reported as PHP's "Could not read log queue file." line error (fresh
// nil); an invalid line as "line N: ...".
func (q *Queue) replayIndependently() (fresh *state, problem, err error) {
	f, err := fsutil.Open(q.logPath)
	if err != nil {
		return nil, ErrReadLog, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, ErrReadLog, nil
	}
	st := newState()
	res, err := replay(f, 0, fi.Size(), 1, st, q.now().Unix(), true, nil)
	if err != nil {
		return nil, nil, err
	}
	if res.invalid != nil {
		return st, res.invalid, nil
	}
	return st, nil, nil
}

// Repair replays from byte 0 truncating at the first invalid line (like
// open), then requeues every processing job with now - claimed_at >=
// timeoutS (PHP default 3600).
func (q *Queue) Repair(timeoutS int64) (RepairResult, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var r RepairResult
	err := q.locked(func() error {
		if err := q.replayAndTruncate(); err != nil {
			return err
		}
		n, err := q.requeueTimedOut(timeoutS, q.now().Unix())
		r = RepairResult{OK: true, Requeued: n}
		return err
	})
	return r, err
}

func fileBytes(path string) int64 {
	fi, err := fsutil.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

// PHP returns the PHP array of the counts() result.
func (c Counts) PHP() *phpjson.Array {
	a := phpjson.NewArray(3)
	a.SetString("pending", int64(c.Pending))
	a.SetString("processing", int64(c.Processing))
	a.SetString("done", int64(c.Done))
	return a
}

// PHP returns the PHP array of the stats() result.
func (s Stats) PHP() *phpjson.Array {
	a := s.Counts.PHP()
	a.SetString("bytes", s.Bytes)
	return a
}

// PHP returns the PHP array of the verify()/health() result.
func (h Health) PHP() *phpjson.Array {
	a := phpjson.NewArray(3)
	a.SetString("ok", h.OK)
	errs := phpjson.NewArray(len(h.Errors))
	for _, e := range h.Errors {
		errs.Append(e)
	}
	a.SetString("errors", errs)
	a.SetString("stats", h.Stats.PHP())
	return a
}

// PHP returns the PHP array of the repair() result.
func (r RepairResult) PHP() *phpjson.Array {
	a := phpjson.NewArray(2)
	a.SetString("ok", r.OK)
	a.SetString("requeued", int64(r.Requeued))
	return a
}
