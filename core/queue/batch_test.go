package queue

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// bigJobs is enough jobs for a batch to pass batchFlushBytes several times.
const bigJobs = 30000

func explicitIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = uuidv7.MinForTimestampMs(int64(1700000000000 + i))
	}
	return ids
}

// Every batch op writes exactly the bytes of its events framed one by one,
// one line per job in order, and a reopened queue agrees with the state.
func TestBatchesMatchLineByLineFraming(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 1700000000}
	q := openTest(t, dir, clock)
	ids := explicitIDs(bigJobs)
	payloads := benchPayloads(bigJobs)
	jobs := make([]Job, bigJobs)
	for i := range jobs {
		jobs[i] = Job{ID: ids[i], Payload: payloads[i].Payload}
	}
	var want, scratch, payloadJSON []byte
	for i, id := range ids {
		payloadJSON, _ = appendPayloadJSON(payloadJSON[:0], jobs[i].Payload)
		want, scratch = appendEventLine(want, scratch, OpEnqueue, id, false, payloadJSON, 1700000000)
	}
	if _, err := q.EnqueueMany(jobs); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		op   Op
		done bool
		ts   int64
		run  func() (int, error)
	}{
		{OpClaim, false, 1700000001, func() (int, error) { recs, err := q.ClaimMany(bigJobs); return len(recs), err }},
		{OpRequeue, false, 1700000002, func() (int, error) { return q.RequeueTimedOut(0) }},
		{OpClaim, false, 1700000003, func() (int, error) { recs, err := q.ClaimMany(bigJobs); return len(recs), err }},
		// duplicates and unknown ids are skipped
		{OpComplete, true, 1700000004, func() (int, error) {
			return q.CompleteMany(append(append([]string{}, ids...), ids[:100]...), true)
		}},
		{OpPurge, false, 1700000005, func() (int, error) { return q.PurgeDone(0) }},
	}
	for _, s := range steps {
		clock.set(s.ts)
		n, err := s.run()
		if err != nil || n != bigJobs {
			t.Fatalf("%v: %d, %v", s.op, n, err)
		}
		for _, id := range ids {
			want, scratch = appendEventLine(want, scratch, s.op, id, s.done, nil, s.ts)
		}
	}
	if got := logBytes(t, dir); got != string(want) {
		t.Fatalf("log differs from the line-by-line framing (%d vs %d bytes)", len(got), len(want))
	}
	mustCounts(t, q, Counts{})
	q2 := openTest(t, dir, clock)
	mustCounts(t, q2, Counts{})
	if got := logBytes(t, dir); got != string(want) {
		t.Fatal("reopen changed the log")
	}
}

// swapInReadOnlyLog gives q a read-only handle on its log, so that its
// writes fail; restore puts the writable one back.
func swapInReadOnlyLog(t *testing.T, q *Queue, dir string) (restore func()) {
	t.Helper()
	readOnly, err := os.Open(filepath.Join(dir, "queue.log"))
	if err != nil {
		t.Fatal(err)
	}
	q.mu.Lock()
	rw := q.log
	q.log = readOnly
	q.mu.Unlock()
	return func() {
		q.mu.Lock()
		q.log = rw
		q.mu.Unlock()
		readOnly.Close()
	}
}

// A batch whose writes fail reports PHP's message, and the next
// operation rebuilds the state from what the log really holds.
func TestBatchWriteFailureMarksStale(t *testing.T) {
	dir := t.TempDir()
	q := openTest(t, dir, &testClock{now: 1700000000})
	if _, err := q.EnqueueMany(make([]Job, bigJobs)); err != nil {
		t.Fatal(err)
	}
	before := logBytes(t, dir)
	restore := swapInReadOnlyLog(t, q, dir)
	_, err := q.ClaimMany(bigJobs)
	if err == nil || !strings.HasPrefix(err.Error(), "Could not write storage file: ") {
		t.Fatalf("claim on a read-only handle: %v", err)
	}
	if !q.stale {
		t.Fatal("state not marked stale")
	}
	restore()
	if got := logBytes(t, dir); got != before {
		t.Fatal("failed batch changed the log")
	}
	mustCounts(t, q, Counts{Pending: bigJobs}) // replayed, not the in-memory claims
	if recs, err := q.ClaimMany(bigJobs); err != nil || len(recs) != bigJobs {
		t.Fatalf("claim after recovery: %d, %v", len(recs), err)
	}
}

// A batch cuts a torn tail first, like every append.
func TestBatchCutsTornTail(t *testing.T) {
	dir := t.TempDir()
	q := openTest(t, dir, &testClock{now: 1700000000})
	if _, err := q.EnqueueMany(make([]Job, bigJobs)); err != nil {
		t.Fatal(err)
	}
	valid := logBytes(t, dir)
	appendRaw(t, dir, "12\tdeadbeef\t{\"op\":")
	if recs, err := q.ClaimMany(bigJobs); err != nil || len(recs) != bigJobs {
		t.Fatalf("claim: %d, %v", len(recs), err)
	}
	got := logBytes(t, dir)
	if !strings.HasPrefix(got, valid) || strings.Contains(got, "deadbeef") {
		t.Fatal("torn tail not cut before the batch")
	}
	q2 := openTest(t, dir, &testClock{now: 1700000000})
	mustCounts(t, q2, Counts{Processing: bigJobs})
}

// CompleteMany finds ids at the head of the processing list or through the
// map: any order, duplicates, another spelling and unknown ids give the
// same lines as completing one by one.
func TestCompleteManyAnyOrder(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 1700000000}
	q := openTest(t, dir, clock)
	ids := explicitIDs(5)
	jobs := make([]Job, len(ids))
	for i := range jobs {
		jobs[i].ID = ids[i]
	}
	if _, err := q.EnqueueMany(jobs); err != nil {
		t.Fatal(err)
	}
	if recs, err := q.ClaimMany(5); err != nil || len(recs) != 5 {
		t.Fatal(recs, err)
	}
	before := logBytes(t, dir)
	clock.set(1700000009)
	order := []string{ids[2], ids[0], strings.ToUpper(ids[1]), ids[0], ids[1], explicitIDs(9)[8], ids[3]}
	n, err := q.CompleteMany(order, false)
	if err != nil || n != 4 {
		t.Fatalf("completed %d, %v", n, err)
	}
	var want, scratch []byte
	for _, id := range []string{ids[2], ids[0], ids[1], ids[3]} {
		want, scratch = appendEventLine(want, scratch, OpComplete, id, false, nil, 1700000009)
	}
	if got := logBytes(t, dir); got != before+string(want) {
		t.Fatalf("lines:\n%s\nwant\n%s", got[len(before):], want)
	}
	mustCounts(t, q, Counts{Processing: 1})
	if recs, err := q.ClaimMany(1); err != nil || len(recs) != 0 {
		t.Fatal(recs, err)
	}
}

// Two instances claiming big batches at once never claim a job twice,
// and each sees the other's batch (the log is the only state).
func TestBatchClaimsAcrossInstances(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 1700000000}
	ids, err := openTest(t, dir, clock).EnqueueMany(make([]Job, 2*bigJobs))
	if err != nil {
		t.Fatal(err)
	}
	qs := []*Queue{openTest(t, dir, clock), openTest(t, dir, clock)}
	got := make([][]Record, 2)
	var wg sync.WaitGroup
	for i, q := range qs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs, err := q.ClaimMany(bigJobs + 5)
			if err != nil {
				t.Error(err)
			}
			got[i] = recs
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, recs := range got {
		for _, r := range recs {
			if seen[r.ID] {
				t.Fatalf("%s claimed twice", r.ID)
			}
			seen[r.ID] = true
		}
	}
	if len(seen) != len(ids) {
		t.Fatalf("claimed %d of %d", len(seen), len(ids))
	}
	for _, q := range qs {
		mustCounts(t, q, Counts{Processing: len(ids)})
	}
}

// A batch of big payloads does not leave its buffer pinned in the
// queue.
func TestBatchBufferNotKept(t *testing.T) {
	q := openTest(t, t.TempDir(), &testClock{now: 1700000000})
	big := phpjson.NewArray(1)
	big.SetString("text", strings.Repeat("x", 64<<10))
	jobs := make([]Job, 100) // 6.4 MiB of lines
	for i := range jobs {
		jobs[i] = Job{Payload: big}
	}
	if _, err := q.EnqueueMany(jobs); err != nil {
		t.Fatal(err)
	}
	if cap(q.buf) > 1<<20 {
		t.Fatalf("queue keeps a %d-byte buffer, want at most 1 MiB", cap(q.buf))
	}
	mustCounts(t, q, Counts{Pending: 100})
}

// A bad payload fails EnqueueMany with its encoder's error, leaving what
// PHP leaves: the whole 1 MiB pieces written before the bad job (unsynced),
// nothing of a smaller batch; the next operation's state is the log's.
func TestEnqueueManyBadPayloadLeavesPHPsPrefix(t *testing.T) {
	tooDeep := tooDeepPayload()
	for _, tc := range []struct {
		name    string
		n, at   int
		payload *phpjson.Array
		want    error
	}{
		{"utf8, last job of a big batch", bigJobs, bigJobs - 1, obj("s", "ok", "t", "\xe2\x82"), phpjson.ErrUTF8},
		{"too deep, middle of a big batch", bigJobs, bigJobs / 2, tooDeep, ErrPayloadTooDeep},
		{"nan, first job", bigJobs, 0, obj("f", obj("g", phpjson.NewList(1.5, math.NaN()))), nil},
		{"utf8, small batch", 50, 49, obj("s", "\xff"), phpjson.ErrUTF8},
	} {
		dir := t.TempDir()
		q := openTest(t, dir, &testClock{now: 1700000000})
		if _, err := q.Enqueue(obj("seed", int64(1)), ""); err != nil {
			t.Fatal(err)
		}
		before := logBytes(t, dir)
		jobs, _, _ := mixedJobs(tc.n)
		jobs[tc.at].Payload = tc.payload
		_, wantErr := appendPayloadJSON(nil, tc.payload)
		if wantErr == nil || (tc.want != nil && !errors.Is(wantErr, tc.want)) {
			t.Fatalf("%s: reference error %v", tc.name, wantErr)
		}
		if _, err := q.EnqueueMany(jobs); err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("%s: %v, want %v", tc.name, err, wantErr)
		}
		var prefix, piece, scratch, payloadJSON []byte
		for _, j := range jobs[:tc.at] {
			payloadJSON, _ = appendPayloadJSON(payloadJSON[:0], j.Payload)
			piece, scratch = appendEventLine(piece, scratch, OpEnqueue, j.ID, false, payloadJSON, 1700000000)
			if len(piece) >= batchFlushBytes {
				prefix, piece = append(prefix, piece...), piece[:0]
			}
		}
		if got := logBytes(t, dir); got != before+string(prefix) {
			t.Fatalf("%s: log grew by %d bytes, want the %d of the whole pieces before the bad job", tc.name, len(got)-len(before), len(prefix))
		}
		mustCounts(t, q, Counts{Pending: 1 + strings.Count(string(prefix), "\n")})
	}
}

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

// hostilePayloads covers escapes, unicode, big numbers, deep nesting, int
// keys, empty arrays and lines whose LEN crosses 1-2-3-4-5 digits.
func hostilePayloads() []*phpjson.Array {
	deep := phpjson.NewArray(1)
	for i := 0; i < 300; i++ {
		outer := phpjson.NewArray(1)
		outer.SetString("d", deep)
		deep = outer
	}
	list := phpjson.NewList(int64(1), "two", 3.5, nil, true, false, phpjson.NewArray(0))
	intKeys := phpjson.NewArray(2)
	intKeys.Set(phpjson.IntKey(0), "zero")
	intKeys.SetString("name", "n")
	return []*phpjson.Array{
		nil,
		phpjson.NewArray(0),
		obj("a", ""),
		obj("s", "quote\" backslash\\ slash/ tab\t nl\n cr\r nul\x00 bell\x07 del\x7f"),
		obj("u", "é ü 日本 😀 \u2028\u2029 \ufeff", "ключ", "значение"),
		obj("big", int64(math.MaxInt64), "neg", int64(math.MinInt64), "f", 1e300, "z", 0.0, "nz", -0.0, "tiny", 5e-324),
		obj("list", list, "nested", obj("x", obj("y", phpjson.NewList()))),
		intKeys,
		deep,
		obj("pad", strings.Repeat("x", 30)),
		obj("pad", strings.Repeat("x", 900)),
		obj("pad", strings.Repeat("y", 9000)),
		obj("pad", strings.Repeat("z", 99990)),
		obj("a", ""),
	}
}

// tooDeepPayload nests maxPayloadDepth arrays: one level more than a
// payload may have.
func tooDeepPayload() *phpjson.Array {
	p := phpjson.NewArray(0)
	for i := 0; i < maxPayloadDepth; i++ {
		outer := phpjson.NewArray(1)
		outer.SetString("d", p)
		p = outer
	}
	return p
}

// With an id generator, a batch failing on job k's payload calls it for
// jobs 0..k only, as PHP does (it generates and encodes job by job): a
// generator that would run dry on a later job does not change the error.
func TestEnqueueManyBadPayloadGeneratorCalls(t *testing.T) {
	const n = bigJobs
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

// A batch whose first write fails leaves the log as it was, and the next
// operation sees the log's state, not the unwritten jobs.
func TestEnqueueManyWriteFailure(t *testing.T) {
	dir := t.TempDir()
	q := openTest(t, dir, &testClock{now: 1700000000})
	jobs, _, _ := mixedJobs(bigJobs)
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

// EnqueueMany reports the first failing job's error, id before payload,
// as PHP resolves and encodes job by job; a small batch writes nothing.
func TestEnqueueManyErrorOrder(t *testing.T) {
	tooDeep := tooDeepPayload()
	badUTF8 := obj("s", "\xff")
	for _, tc := range []struct {
		name string
		jobs []Job
		want error
	}{
		{"payload before later id", []Job{{Payload: tooDeep}, {ID: "nope"}}, ErrPayloadTooDeep},
		{"id before own payload", []Job{{}, {ID: "nope", Payload: badUTF8}}, uuidv7.ErrInvalid},
		{"utf8 payload", []Job{{}, {Payload: badUTF8}}, phpjson.ErrUTF8},
	} {
		dir := t.TempDir()
		q := openTest(t, dir, &testClock{now: 1700000000})
		if _, err := q.EnqueueMany(tc.jobs); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if got := logBytes(t, dir); got != "" {
			t.Errorf("%s: wrote %q", tc.name, got)
		}
	}
}

// Generated ids of a batch are valid, lowercase, strictly increasing and
// continue the generator's monotonic state.
func TestEnqueueManyGeneratedIDs(t *testing.T) {
	q := openTest(t, t.TempDir(), &testClock{now: 1700000000})
	first, err := q.Enqueue(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	jobs := make([]Job, 500)
	jobs[7].ID = idA
	ids, err := q.EnqueueMany(jobs)
	if err != nil {
		t.Fatal(err)
	}
	prev := first
	for i, id := range ids {
		if i == 7 {
			if id != idA {
				t.Fatalf("explicit id replaced by %q", id)
			}
			continue
		}
		if !uuidv7.Valid(id) || id != strings.ToLower(id) || id <= prev {
			t.Fatalf("id %d %q after %q", i, id, prev)
		}
		prev = id
	}
	mustCounts(t, q, Counts{Pending: 501})
}
