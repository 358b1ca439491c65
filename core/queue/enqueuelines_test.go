package queue

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"storhfs/core/phpjson"
	"storhfs/core/uuidv7"
)

// mixedJobs is n jobs with explicit ids whose payloads cycle through the
// hostile ones (LEN from 2 to 6 digits, so neighbouring lines change their
// digit count) and plain ones; every payload is shared by several jobs,
// which the parallel check reads at once.
func mixedJobs(n int) ([]Job, []string, []*phpjson.Array) {
	hostile := hostilePayloads()
	ids := explicitIDs(n)
	jobs := make([]Job, n)
	payloads := make([]*phpjson.Array, n)
	for i := range jobs {
		p := obj("task", "render", "page", int64(i))
		if i%7 == 3 {
			p = hostile[(i/7)%len(hostile)]
		}
		jobs[i] = Job{ID: ids[i], Payload: p}
		payloads[i] = p
	}
	return jobs, ids, payloads
}

// For every batch size (one line, below and at the streaming threshold,
// one and several chunks) the log holds exactly the sequential framing
// (appendPayloadJSON + appendEventLine per job), hashes included, and a
// reopened queue agrees.
func TestEnqueueManySizesMatchSlowFraming(t *testing.T) {
	sizes := []int{1, 2, 2*checkMinPerWorker - 1, streamMinLines - 1, streamMinLines, streamMinLines + 1, 3*streamMinLines + 17, 9000}
	for _, n := range sizes {
		dir := t.TempDir()
		clock := &testClock{now: 1700000000}
		q := openTest(t, dir, clock)
		jobs, ids, payloads := mixedJobs(n)
		got, err := q.EnqueueMany(jobs)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Fatalf("n=%d: ids differ", n)
		}
		want, err := slowEnqueueLines(t, ids, payloads, 1700000000)
		if err != nil {
			t.Fatal(err)
		}
		if log := logBytes(t, dir); log != string(want) {
			i := 0
			for i < len(log) && i < len(want) && log[i] == want[i] {
				i++
			}
			t.Fatalf("n=%d: log differs from the slow framing at byte %d of %d/%d:\n%.120q\nwant\n%.120q",
				n, i, len(log), len(want), log[i:], want[i:])
		}
		mustCounts(t, q, Counts{Pending: n})
		mustCounts(t, openTest(t, dir, clock), Counts{Pending: n})
		if recs, err := q.ClaimMany(n); err != nil || len(recs) != n {
			t.Fatalf("n=%d: claimed %d, %v", n, len(recs), err)
		} else {
			gotJSON, _ := appendPayloadJSON(nil, recs[n-1].Payload)
			wantJSON, _ := appendPayloadJSON(nil, NormalizePayload(payloadOrEmpty(payloads[n-1])))
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Fatalf("n=%d: last payload %s, want %s", n, gotJSON, wantJSON)
			}
		}
	}
}

// startPayloadCheck finds the first bad job wherever it is: at the edges of
// the workers' ranges, in the last range only, and with bad jobs in several
// ranges (the earliest wins).
func TestPayloadCheck(t *testing.T) {
	bad := obj("s", "\xff")
	for _, n := range []int{1, 2*checkMinPerWorker - 1, 2 * checkMinPerWorker, 3*streamMinLines + 17} {
		workers := max(1, min(runtime.GOMAXPROCS(0), n/checkMinPerWorker))
		positions := []int{0, n - 1, n / 2}
		for w := 1; w < workers; w++ {
			lo := n * w / workers
			positions = append(positions, lo-1, lo, lo+1)
		}
		jobs := make([]Job, n)
		if got := startPayloadCheck(jobs)(); got != -1 {
			t.Fatalf("n=%d, all valid: %d", n, got)
		}
		for _, p := range positions {
			if p < 0 || p >= n {
				continue
			}
			jobs := make([]Job, n)
			jobs[p].Payload = bad
			if got := startPayloadCheck(jobs)(); got != p {
				t.Fatalf("n=%d: bad job %d found at %d", n, p, got)
			}
			jobs[n-1].Payload = bad // a later one in another range
			if got := startPayloadCheck(jobs)(); got != p {
				t.Fatalf("n=%d: bad jobs %d and %d found at %d", n, p, n-1, got)
			}
		}
	}
}

// An invalid payload anywhere in a batch, the last worker's range
// included, fails it with appendPayloadJSON's error, writes nothing and
// leaves the state alone; the queue then takes a valid batch.
func TestEnqueueManyBadPayloadWritesNothing(t *testing.T) {
	tooDeep := tooDeepPayload()
	const n = 3*streamMinLines + 17
	for _, tc := range []struct {
		name    string
		at      int
		payload *phpjson.Array
		want    error
	}{
		{"utf8, last job", n - 1, obj("s", "ok", "t", "\xe2\x82"), phpjson.ErrUTF8},
		{"too deep, last range", n - 10, tooDeep, ErrPayloadTooDeep},
		{"nan, first job", 0, obj("f", obj("g", phpjson.NewList(1.5, nanValue()))), nil},
	} {
		dir := t.TempDir()
		q := openTest(t, dir, &testClock{now: 1700000000})
		if _, err := q.Enqueue(obj("seed", int64(1)), ""); err != nil {
			t.Fatal(err)
		}
		before := logBytes(t, dir)
		jobs, _, _ := mixedJobs(n)
		jobs[tc.at].Payload = tc.payload
		_, wantErr := appendPayloadJSON(nil, tc.payload)
		if wantErr == nil || (tc.want != nil && !errors.Is(wantErr, tc.want)) {
			t.Fatalf("%s: reference error %v", tc.name, wantErr)
		}
		_, err := q.EnqueueMany(jobs)
		if err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("%s: %v, want %v", tc.name, err, wantErr)
		}
		if got := logBytes(t, dir); got != before {
			t.Fatalf("%s: wrote %d bytes", tc.name, len(got)-len(before))
		}
		mustCounts(t, q, Counts{Pending: 1})
		jobs[tc.at].Payload = nil
		if _, err := q.EnqueueMany(jobs); err != nil {
			t.Fatal(err)
		}
		mustCounts(t, q, Counts{Pending: 1 + n})
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

// With an id generator, a batch failing on job k's payload calls it for
// jobs 0..k only, as PHP does (it generates and encodes job by job): a
// generator that would run dry on a later job does not change the error.
func TestEnqueueManyBadPayloadGeneratorCalls(t *testing.T) {
	const n = 3*streamMinLines + 17
	for _, bad := range []int{0, n / 2, n - 1} {
		calls := 0
		q, err := OpenDir(t.TempDir(), Options{
			Now: (&testClock{now: 1700000000}).Now,
			NewID: func() (string, error) {
				calls++
				if calls > bad+1 {
					return "", fmt.Errorf("generator called for job %d", calls-1)
				}
				return uuidv7.MinForTimestampMs(int64(1700000000000 + calls)), nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		jobs := make([]Job, n)
		jobs[bad].Payload = obj("s", "\xc3")
		if _, err := q.EnqueueMany(jobs); !errors.Is(err, phpjson.ErrUTF8) {
			t.Fatalf("bad job %d: %v", bad, err)
		}
		if calls != bad+1 {
			t.Fatalf("bad job %d: generator called %d times", bad, calls)
		}
		q.Close()
	}
}

// Under the lock, the state goroutine has finished before EnqueueMany
// returns, also when the write fails: the next operation sees the full
// state or, after a failure, the log's.
func TestEnqueueManyWriteFailure(t *testing.T) {
	dir := t.TempDir()
	q := openTest(t, dir, &testClock{now: 1700000000})
	jobs, _, _ := mixedJobs(3*streamMinLines + 17)
	restore := swapInReadOnlyLog(t, q, dir)
	if _, err := q.EnqueueMany(jobs); err == nil || !strings.HasPrefix(err.Error(), "Could not write storage file: ") {
		t.Fatalf("enqueueMany on a read-only handle: %v", err)
	}
	if !q.stale {
		t.Fatal("state not marked stale")
	}
	restore()
	mustCounts(t, q, Counts{}) // replayed from the empty log
	if logBytes(t, dir) != "" {
		t.Fatal("failed batch wrote")
	}
}

// fillHashes over lines framed by endLineUnhashed gives endLine's bytes,
// for every LEN digit count and digit guess.
func TestFillHashesMatchesEndLine(t *testing.T) {
	var want, got []byte
	for _, n := range []int{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 9999, 10000, 123456} {
		json := bytes.Repeat([]byte{'a' + byte(n%26)}, n)
		for guess := 1; guess <= 7; guess++ {
			dst, start := beginLine(want, guess)
			want, _ = endLine(append(dst, json...), start, guess)
			dst, start = beginLine(got, guess)
			var digits int
			got, digits = endLineUnhashed(append(dst, json...), start, guess)
			if digits != decimalLen(n) {
				t.Fatalf("n=%d guess=%d: %d digits", n, guess, digits)
			}
		}
	}
	fillHashes(got)
	if !bytes.Equal(got, want) {
		t.Fatal("fillHashes differs from endLine")
	}
}
