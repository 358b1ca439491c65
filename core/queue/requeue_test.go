package queue

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/storhfs/storhfs/core/uuidv7"
)

// RequeueMany of every processing job writes the very lines PHP's
// requeue_timed_out(0) writes; other ids are skipped, a bad id fails first.
func TestRequeueManyWritesRequeueTimedOutsEvents(t *testing.T) {
	run := func(dir string, requeue func(q *Queue, claimed []string) (int, error)) string {
		clock := &testClock{now: 1700000000}
		q := openTest(t, dir, clock)
		for _, id := range []string{"018bcfe5-6800-7000-8000-00000000000a", "018bcfe5-6800-7000-8000-00000000000b", "018bcfe5-6800-7000-8000-00000000000c"} {
			if _, err := q.Enqueue(obj("id", id), id); err != nil {
				t.Fatal(err)
			}
		}
		recs, err := q.ClaimMany(2)
		if err != nil || len(recs) != 2 {
			t.Fatal(recs, err)
		}
		clock.set(1700000009)
		if n, err := requeue(q, []string{recs[0].ID, recs[1].ID}); err != nil || n != 2 {
			t.Fatalf("requeued %d, %v; want 2", n, err)
		}
		mustCounts(t, q, Counts{Pending: 3})
		return logBytes(t, dir)
	}
	tmp := t.TempDir()
	want := run(filepath.Join(tmp, "timed-out"), func(q *Queue, _ []string) (int, error) { return q.RequeueTimedOut(0) })
	got := run(filepath.Join(tmp, "by-id"), func(q *Queue, ids []string) (int, error) {
		// A duplicate and a pending job are skipped.
		return q.RequeueMany([]string{ids[0], ids[1], ids[0], "018bcfe5-6800-7000-8000-00000000000c"})
	})
	if got != want {
		t.Fatalf("RequeueMany wrote\n%s\nrequeue_timed_out writes\n%s", got, want)
	}

	q := openTest(t, filepath.Join(tmp, "by-id"), &testClock{now: 1700000010})
	if n, err := q.RequeueMany([]string{"018bcfe5-6800-7000-8000-00000000000a", "bad"}); n != 0 || !errors.Is(err, uuidv7.ErrInvalid) {
		t.Fatalf("RequeueMany with a bad id = %d, %v; want 0, %v", n, err, uuidv7.ErrInvalid)
	}
	mustCounts(t, q, Counts{Pending: 3})
}
