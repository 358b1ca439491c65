package fusefs_test

import (
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/core/seglog"
	"github.com/storhfs/storhfs/fusefs"
	"github.com/storhfs/storhfs/internal/engines"
)

func latestView(t *testing.T, src fusefs.ViewSource, name string) fusefs.View {
	t.Helper()
	v, err := src.Latest(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Release)
	return v
}

func rowN(n int) *phpjson.Array {
	a := phpjson.NewArray(1)
	a.SetString("n", int64(n))
	return a
}

// The real sources tell appends from the replays where they can, and
// extendsView compares bytes where they cannot.
func TestLogViewsExtend(t *testing.T) {
	root := t.TempDir()
	l, err := seglog.Open(root, "audit", seglog.Options{MaxSegmentBytes: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	src := fusefs.NewLogViews(engines.Logs{}.Open(root + "/audit"))
	defer src.Drop()
	put := func(id string, n int) string {
		r, err := l.Put(rowN(n), id)
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	first := put("", 1)
	put("", 2)
	a := latestView(t, src, fusefs.RecordsView)
	put("", 3)
	put("", 4)
	b := latestView(t, src, fusefs.RecordsView)
	if !b.ExtendsKnown(a) {
		t.Error("appends of new ids to a sequential log: not known from the replays")
	}
	put(first, 5) // moves the first record to the end
	c := latestView(t, src, fusefs.RecordsView)
	if grown, err := fusefs.ExtendsView(b, c); err != nil || grown {
		t.Errorf("an update counts as an append: %v, %v", grown, err)
	}
	put("", 6)
	d := latestView(t, src, fusefs.RecordsView)
	if d.ExtendsKnown(c) {
		t.Error("a log with an update is known to extend from the replays")
	}
	if grown, err := fusefs.ExtendsView(c, d); err != nil || !grown {
		t.Errorf("an append after an update: %v, %v", grown, err)
	}
}

func TestQueueViewsExtend(t *testing.T) {
	root := t.TempDir()
	q, err := queue.Open(root, "jobs", queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := fusefs.NewQueueViews(engines.Queues{}.Open(queue.Dir(root, "jobs")))
	defer src.Drop()
	enqueue := func(n int) {
		if _, err := q.Enqueue(rowN(n), ""); err != nil {
			t.Fatal(err)
		}
	}
	enqueue(1)
	events, pending := latestView(t, src, "events.ndjson"), latestView(t, src, "pending.ndjson")
	enqueue(2)
	events2, pending2 := latestView(t, src, "events.ndjson"), latestView(t, src, "pending.ndjson")
	if !events2.ExtendsKnown(events) {
		t.Error("an enqueue: events view not known to extend")
	}
	if grown, err := fusefs.ExtendsView(pending, pending2); err != nil || !grown {
		t.Errorf("an enqueue: pending view did not grow by an append: %v, %v", grown, err)
	}
	if _, err := q.Claim(); err != nil {
		t.Fatal(err)
	}
	pending3 := latestView(t, src, "pending.ndjson")
	if grown, err := fusefs.ExtendsView(pending2, pending3); err != nil || grown {
		t.Errorf("a claim counts as an append to pending: %v, %v", grown, err)
	}
	if !latestView(t, src, "events.ndjson").ExtendsKnown(events2) {
		t.Error("a claim: events view not known to extend")
	}
}
