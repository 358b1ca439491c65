package queue

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/guard"
	"github.com/storhfs/storhfs/core/phpjson"
)

// testClock is a settable clock (Unix seconds).
type testClock struct {
	mu  sync.Mutex
	now int64
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Unix(c.now, 0)
}

func (c *testClock) set(s int64) {
	c.mu.Lock()
	c.now = s
	c.mu.Unlock()
}

func openTest(t *testing.T, dir string, clock *testClock) *Queue {
	t.Helper()
	q, err := OpenDir(dir, Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

func obj(kv ...any) *phpjson.Array {
	a := phpjson.NewArray(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		a.SetString(kv[i].(string), kv[i+1])
	}
	return a
}

func mustCounts(t *testing.T, q *Queue, want Counts) {
	t.Helper()
	got, err := q.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
}

func logBytes(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "queue.log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func appendRaw(t *testing.T, dir, s string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "queue.log"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func line(json string) string { return string(guard.Append(nil, []byte(json))) }

func TestWorkedExample(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "queue.log"), []byte(workedExample), 0o666)
	q := openTest(t, dir, &testClock{now: 1700100000})
	st, err := q.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st != (Stats{Counts{1, 0, 0}, 1000}) {
		t.Fatalf("stats %+v", st)
	}
	h, err := q.Verify()
	if err != nil || !h.OK || len(h.Errors) != 0 {
		t.Fatalf("verify %+v %v", h, err)
	}
	rec, err := q.Claim()
	if err != nil || rec == nil || rec.ID != "018bcfe5-6801-7000-8000-00000000000b" || rec.Payload.Len() != 0 {
		t.Fatalf("claim %+v %v", rec, err)
	}
	if rec, err := q.Claim(); rec != nil || err != nil {
		t.Fatalf("second claim %+v %v", rec, err)
	}
}

func TestWrittenBytesMatchPHP(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 1700000000}
	q := openTest(t, dir, clock)
	if _, err := q.Enqueue(obj("task", "render", "page", int64(1)), "018bcfe5-6800-7000-8000-00000000000a"); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Enqueue(nil, "018bcfe5-6801-7000-8000-00000000000b"); err != nil {
		t.Fatal(err)
	}
	clock.set(1700000001)
	if _, err := q.Enqueue(obj("to", "a/b@é.test", "n", 1.0), "018bcfe5-6802-7000-8000-00000000000c"); err != nil {
		t.Fatal(err)
	}
	clock.set(1700000005)
	if recs, err := q.ClaimMany(2); err != nil || len(recs) != 2 {
		t.Fatal(recs, err)
	}
	clock.set(1700000010)
	if err := q.Complete("018bcfe5-6800-7000-8000-00000000000a", true); err != nil {
		t.Fatal(err)
	}
	clock.set(1700003700)
	if n, err := q.RequeueTimedOut(3600); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	clock.set(1700003701)
	if rec, err := q.Claim(); err != nil || rec.ID != "018bcfe5-6802-7000-8000-00000000000c" {
		t.Fatal(rec, err)
	}
	clock.set(1700003702)
	if err := q.Complete("018bcfe5-6802-7000-8000-00000000000c", false); err != nil {
		t.Fatal(err)
	}
	clock.set(1700090000)
	if n, err := q.PurgeDone(0); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	if got := logBytes(t, dir); got != workedExample {
		t.Fatalf("log differs from docs/format/queue.md §3.5:\n%s", got)
	}
}

func TestClaimOrderAfterRequeueAndReopen(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 1000}
	q := openTest(t, dir, clock)
	a, _ := q.Enqueue(obj("v", "A"), "")
	b, _ := q.Enqueue(obj("v", "B"), "")
	if rec, _ := q.Claim(); rec.ID != a {
		t.Fatalf("claimed %s, want A", rec.ID)
	}
	if n, _ := q.RequeueTimedOut(0); n != 1 {
		t.Fatal("requeue")
	}
	q.Close()
	q = openTest(t, dir, clock)
	recs, err := q.ClaimMany(5)
	if err != nil || len(recs) != 2 || recs[0].ID != b || recs[1].ID != a {
		t.Fatalf("claim order %+v %v", recs, err)
	}
}

func TestOpenTruncatesAtFirstInvalidLine(t *testing.T) {
	valid := line(`{"op":"enqueue","id":"` + idA + `","payload":[],"ts":1}`)
	later := line(`{"op":"claim","id":"` + idA + `","ts":2}`)
	for _, tc := range []struct{ name, bad string }{
		{"garbage", "garbage\n"},
		{"blank", "\n"},
		{"unknown op", line(`{"op":"heartbeat","id":"` + idA + `"}`)},
		{"upper hash", strings.ToUpper(line(`{"op":"claim","id":"` + idA + `"}`))},
		{"wrong length", "5" + later},
		{"invalid utf8", line("{\"op\":\"claim\",\"id\":\"" + idA + "\",\"x\":\"\xc3\"}")},
		{"depth 512", line(`{"op":"claim","id":"` + idA + `","x":` + strings.Repeat("[", 511) + strings.Repeat("]", 511) + `}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "queue.log"), []byte(valid+tc.bad+later), 0o666)
			q := openTest(t, dir, &testClock{now: 10})
			mustCounts(t, q, Counts{Pending: 1})
			if got := logBytes(t, dir); got != valid {
				t.Fatalf("log after open %q", got)
			}
		})
	}
}

func TestSyncNoticesOtherWritersWithoutTruncating(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 100}
	q := openTest(t, dir, clock)
	id, _ := q.Enqueue(obj("n", int64(1)), "")
	// Another writer appends a valid claim: noticed by size.
	appendRaw(t, dir, line(`{"op":"claim","id":"`+id+`","ts":50}`))
	mustCounts(t, q, Counts{Processing: 1})
	// A torn fragment: sync stops there, verify reports it, nothing is cut.
	appendRaw(t, dir, "broken")
	size := len(logBytes(t, dir))
	h, err := q.Verify()
	if err != nil || h.OK || len(h.Errors) != 1 || h.Errors[0] != "line 3: Torn log queue line." {
		t.Fatalf("verify %+v %v", h, err)
	}
	if h.Stats.Bytes != int64(size) || len(logBytes(t, dir)) != size {
		t.Fatal("verify changed the log")
	}
	// Our next append first cuts the invalid tail (no glued line, no NUL).
	if _, err := q.Enqueue(obj("n", int64(2)), ""); err != nil {
		t.Fatal(err)
	}
	log := logBytes(t, dir)
	if strings.Contains(log, "broken") || strings.Contains(log, "\x00") {
		t.Fatalf("log %q", log)
	}
	if h, _ := q.Verify(); !h.OK {
		t.Fatalf("verify after append %+v", h)
	}
	// The file shrinking (another process truncated) triggers a full replay.
	os.Truncate(filepath.Join(dir, "queue.log"), int64(len(line(`{"op":"enqueue","id":"`+id+`","payload":{"n":1},"ts":100}`))))
	mustCounts(t, q, Counts{Pending: 1})
}

func TestVerifyDriftAndUnreadable(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 100}
	q := openTest(t, dir, clock)
	id, _ := q.Enqueue(obj("n", int64(1)), "")
	// Same-size rewrite: the live state cannot notice it, verify can.
	path := filepath.Join(dir, "queue.log")
	b, _ := os.ReadFile(path)
	rewritten := line(`{"op":"enqueue","id":"` + id + `","payload":{"n":2},"ts":100}`)
	if len(rewritten) != len(b) {
		t.Fatal("rewrite must keep the size")
	}
	os.WriteFile(path, []byte(rewritten), 0o666)
	h, err := q.Verify()
	if err != nil || h.OK || h.Errors[0] != "Log queue state drift." {
		t.Fatalf("verify %+v %v", h, err)
	}
	os.Remove(path)
	h, err = q.Verify()
	if err != nil || h.OK || h.Errors[0] != "Could not read log queue file." || h.Stats.Bytes != 0 {
		t.Fatalf("verify unlinked %+v %v", h, err)
	}
}

func TestOperationSemantics(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 1000}
	q := openTest(t, dir, clock)
	ids, err := q.EnqueueMany([]Job{{Payload: obj("a", int64(1))}, {Payload: nil}, {ID: strings.ToUpper(idA)}})
	if err != nil || len(ids) != 3 || ids[2] != strings.ToUpper(idA) {
		t.Fatal(ids, err)
	}
	if _, err := q.EnqueueMany([]Job{{Payload: obj()}, {ID: "bad"}}); err == nil || err.Error() != "Invalid UUIDv7 value." {
		t.Fatalf("bad batch: %v", err)
	}
	if _, err := q.ClaimMany(0); err == nil || err.Error() != "Queue claim limit must be at least 1." {
		t.Fatalf("claimMany(0): %v", err)
	}
	if err := q.Complete("nope", true); err == nil || err.Error() != "Invalid UUIDv7 value." {
		t.Fatalf("complete(nope): %v", err)
	}
	mustCounts(t, q, Counts{Pending: 3})
	size := len(logBytes(t, dir))
	if err := q.Complete(ids[0], true); err != nil || len(logBytes(t, dir)) != size {
		t.Fatal("complete of a pending job must write nothing", err)
	}
	recs, _ := q.ClaimMany(10)
	if len(recs) != 3 || recs[0].ID != ids[0] {
		t.Fatalf("claimed %+v", recs)
	}
	clock.set(1010)
	n, err := q.CompleteMany([]string{ids[0], ids[0], ids[1], strings.ToLower(idA)}, true)
	if err != nil || n != 2 {
		t.Fatalf("completeMany %d %v", n, err)
	}
	if n, _ := q.CompleteMany([]string{ids[2]}, false); n != 1 {
		t.Fatal("keep_done false")
	}
	mustCounts(t, q, Counts{Done: 2})
	clock.set(1015)
	if n, _ := q.PurgeDone(10); n != 0 {
		t.Fatal("purged too young")
	}
	clock.set(1020)
	if n, _ := q.PurgeDone(10); n != 2 {
		t.Fatal("purge")
	}
	mustCounts(t, q, Counts{})
	tooDeep := phpjson.NewArray(0)
	for i := 0; i < 510; i++ {
		tooDeep = phpjson.NewList(tooDeep)
	}
	size = len(logBytes(t, dir))
	if _, err := q.Enqueue(tooDeep, ""); err == nil || err.Error() != "Maximum stack depth exceeded" {
		t.Fatalf("deep payload: %v", err)
	}
	if len(logBytes(t, dir)) != size {
		t.Fatal("deep payload written")
	}
	if h, _ := q.Verify(); !h.OK {
		t.Fatalf("verify %+v", h)
	}
	q.Close()
	if _, err := q.Counts(); err == nil {
		t.Fatal("closed queue answered")
	}
}

func TestRepairTruncatesAndRequeues(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 1000}
	q := openTest(t, dir, clock)
	id, _ := q.Enqueue(nil, "")
	q.Claim()
	appendRaw(t, dir, "garbage\n")
	clock.set(1100)
	r, err := q.Repair(60)
	if err != nil || r != (RepairResult{OK: true, Requeued: 1}) {
		t.Fatalf("repair %+v %v", r, err)
	}
	log := logBytes(t, dir)
	if strings.Contains(log, "garbage") || !strings.HasSuffix(log, line(`{"op":"requeue","id":"`+id+`","ts":1100}`)) {
		t.Fatalf("log after repair %q", log)
	}
}

// Two Queue instances (two lock descriptors, as two processes would have)
// claiming concurrently never hand out a job twice.
func TestConcurrentInstancesClaimOnce(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 1000}
	const jobs = 300
	seed := openTest(t, dir, clock)
	batch := make([]Job, jobs)
	want, err := seed.EnqueueMany(batch)
	if err != nil {
		t.Fatal(err)
	}
	qs := []*Queue{openTest(t, dir, clock), openTest(t, dir, clock)}
	var mu sync.Mutex
	claimed := map[string]int{}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(q *Queue, bulk bool) {
			defer wg.Done()
			for {
				var recs []Record
				if bulk {
					var err error
					if recs, err = q.ClaimMany(3); err != nil {
						t.Error(err)
						return
					}
				} else if rec, err := q.Claim(); err != nil {
					t.Error(err)
					return
				} else if rec != nil {
					recs = []Record{*rec}
				}
				if len(recs) == 0 {
					return
				}
				mu.Lock()
				for _, r := range recs {
					claimed[r.ID]++
				}
				mu.Unlock()
				for _, r := range recs {
					if err := q.Complete(r.ID, true); err != nil {
						t.Error(err)
					}
				}
			}
		}(qs[w%2], w >= 2)
	}
	wg.Wait()
	if len(claimed) != jobs {
		t.Fatalf("%d distinct jobs claimed, want %d", len(claimed), jobs)
	}
	for _, id := range want {
		if claimed[id] != 1 {
			t.Fatalf("job %s claimed %d times", id, claimed[id])
		}
	}
	mustCounts(t, seed, Counts{Done: jobs})
	if h, _ := seed.Verify(); !h.OK {
		t.Fatalf("verify %+v", h)
	}
	if bytes.Contains([]byte(logBytes(t, dir)), []byte{0}) {
		t.Fatal("NUL in log")
	}
}
