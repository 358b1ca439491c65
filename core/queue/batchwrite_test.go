package queue

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"storhfs/core/phpjson"
	"storhfs/core/uuidv7"
)

// streamedJobs is enough jobs for every batch op to stream its lines.
const streamedJobs = 3*streamMinLines + 17

func explicitIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = uuidv7.MinForTimestampMs(int64(1700000000000 + i))
	}
	return ids
}

// Every batch op writes, streamed, exactly the bytes of the slow framing,
// one line per job in order, and a reopened queue agrees with the state.
func TestStreamedBatchesMatchSlowFraming(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 1700000000}
	q := openTest(t, dir, clock)
	ids := explicitIDs(streamedJobs)
	payloads := benchPayloads(streamedJobs)
	jobs := make([]Job, streamedJobs)
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
		{OpClaim, false, 1700000001, func() (int, error) { recs, err := q.ClaimMany(streamedJobs); return len(recs), err }},
		{OpRequeue, false, 1700000002, func() (int, error) { return q.RequeueTimedOut(0) }},
		{OpClaim, false, 1700000003, func() (int, error) { recs, err := q.ClaimMany(streamedJobs); return len(recs), err }},
		// duplicates and unknown ids are skipped
		{OpComplete, true, 1700000004, func() (int, error) {
			return q.CompleteMany(append(append([]string{}, ids...), ids[:100]...), true)
		}},
		{OpPurge, false, 1700000005, func() (int, error) { return q.PurgeDone(0) }},
	}
	for _, s := range steps {
		clock.set(s.ts)
		n, err := s.run()
		if err != nil || n != streamedJobs {
			t.Fatalf("%v: %d, %v", s.op, n, err)
		}
		for _, id := range ids {
			want, scratch = appendEventLine(want, scratch, s.op, id, s.done, nil, s.ts)
		}
	}
	if got := logBytes(t, dir); got != string(want) {
		t.Fatalf("streamed log differs from the slow framing (%d vs %d bytes)", len(got), len(want))
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

// A streamed batch whose writes fail reports PHP's message, and the next
// operation rebuilds the state from what the log really holds.
func TestStreamedBatchWriteFailureMarksStale(t *testing.T) {
	dir := t.TempDir()
	q := openTest(t, dir, &testClock{now: 1700000000})
	if _, err := q.EnqueueMany(make([]Job, streamedJobs)); err != nil {
		t.Fatal(err)
	}
	before := logBytes(t, dir)
	restore := swapInReadOnlyLog(t, q, dir)
	_, err := q.ClaimMany(streamedJobs)
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
	mustCounts(t, q, Counts{Pending: streamedJobs}) // replayed, not the in-memory claims
	if recs, err := q.ClaimMany(streamedJobs); err != nil || len(recs) != streamedJobs {
		t.Fatalf("claim after recovery: %d, %v", len(recs), err)
	}
}

// A streamed batch cuts a torn tail first, like every append.
func TestStreamedBatchCutsTornTail(t *testing.T) {
	dir := t.TempDir()
	q := openTest(t, dir, &testClock{now: 1700000000})
	if _, err := q.EnqueueMany(make([]Job, streamedJobs)); err != nil {
		t.Fatal(err)
	}
	valid := logBytes(t, dir)
	appendRaw(t, dir, "12\tdeadbeef\t{\"op\":")
	if recs, err := q.ClaimMany(streamedJobs); err != nil || len(recs) != streamedJobs {
		t.Fatalf("claim: %d, %v", len(recs), err)
	}
	got := logBytes(t, dir)
	if !strings.HasPrefix(got, valid) || strings.Contains(got, "deadbeef") {
		t.Fatal("torn tail not cut before the streamed batch")
	}
	q2 := openTest(t, dir, &testClock{now: 1700000000})
	mustCounts(t, q2, Counts{Processing: streamedJobs})
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

// An aborted streamed batch writes only the chunks already handed over,
// never fsyncs, and leaves the state to be rebuilt from the log.
func TestStreamedBatchAbort(t *testing.T) {
	dir := t.TempDir()
	q := openTest(t, dir, &testClock{now: 1700000000})
	ids := explicitIDs(streamedJobs)
	var handedOver []byte
	err := q.op(func(now int64) error {
		w, err := q.beginBatch(streamedJobs)
		if err != nil {
			return err
		}
		lines := newIDLines(OpPurge, false, now)
		for i := 0; handedOver == nil; i++ {
			w.buf = lines.add(w.buf, ids[i%len(ids)])
			if len(w.buf) >= streamChunk {
				handedOver = append([]byte(nil), w.buf...) // next hands this over
			}
			w.next()
		}
		w.buf = lines.add(w.buf, ids[0]) // never handed over
		w.abort()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !q.stale || q.syncWait != 0 {
		t.Fatalf("stale %v, fsync wait %v", q.stale, q.syncWait)
	}
	if got := logBytes(t, dir); got != string(handedOver) {
		t.Fatalf("log holds %d bytes, want the %d handed over", len(got), len(handedOver))
	}
	mustCounts(t, q, Counts{})
}

// Two instances claiming streamed batches at once never claim a job twice,
// and each sees the other's batch (the log is the only state).
func TestStreamedClaimsAcrossInstances(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 1700000000}
	ids, err := openTest(t, dir, clock).EnqueueMany(make([]Job, 2*streamedJobs))
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
			recs, err := q.ClaimMany(streamedJobs + 5)
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

// A panic while a streamed batch is built ends the batch (deferred
// endIfOpen): the writer goroutine stops, nothing is fsynced, and the
// queue rebuilds its state from the log.
func TestStreamedBatchPanicEndsWriter(t *testing.T) {
	dir := t.TempDir()
	q := openTest(t, dir, &testClock{now: 1700000000})
	ids := explicitIDs(streamedJobs)
	var w *batchWriter
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		_ = q.op(func(now int64) error {
			var err error
			if w, err = q.beginBatch(streamedJobs); err != nil {
				return err
			}
			defer w.endIfOpen()
			lines := newIDLines(OpPurge, false, now)
			for i := range ids {
				w.buf = lines.add(w.buf, ids[i])
				w.next()
			}
			panic("while building the batch")
		})
	}()
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
		t.Fatal("writer goroutine still running after the panic")
	}
	if !q.stale || q.syncWait != 0 {
		t.Fatalf("stale %v, fsync wait %v", q.stale, q.syncWait)
	}
}

// A small batch of big payloads does not leave its buffer pinned in the
// queue.
func TestSmallBatchBufferNotKept(t *testing.T) {
	q := openTest(t, t.TempDir(), &testClock{now: 1700000000})
	big := phpjson.NewArray(1)
	big.SetString("text", strings.Repeat("x", 64<<10))
	jobs := make([]Job, 100) // 6.4 MiB of lines, below streamMinLines
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
