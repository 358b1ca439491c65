package engines

import (
	"io"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/fusefs"
)

func queueViewText(t *testing.T, s fusefs.QueueSnapshot, v fusefs.QueueView) string {
	t.Helper()
	size, err := s.ViewSize(v)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, size+1)
	n, err := s.ReadAt(v, b, 0)
	if int64(n) != size || err != io.EOF {
		t.Fatalf("view %d: read %d of %d bytes, %v", v, n, size, err)
	}
	return string(b[:n])
}

// A snapshot taken after an earlier one shows what a fresh one shows, the
// earlier one keeps its views, and a prev of another backend is ignored.
func TestQueueSnapshotAfter(t *testing.T) {
	dir := t.TempDir()
	q, err := queue.OpenDir(dir, queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	payload := phpjson.NewArray(1)
	payload.SetString("n", int64(1))
	if _, err := q.Enqueue(payload, ""); err != nil {
		t.Fatal(err)
	}
	store := Queues{}.Open(dir)
	first, err := store.SnapshotAfter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	before := queueViewText(t, first, fusefs.QueuePending)
	if _, err := q.Claim(); err != nil {
		t.Fatal(err)
	}
	for _, prev := range []fusefs.QueueSnapshot{first, foreignSnapshot{}} {
		next, err := store.SnapshotAfter(prev)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := store.SnapshotAfter(nil)
		if err != nil {
			t.Fatal(err)
		}
		for v := fusefs.QueuePending; v <= fusefs.QueueEvents; v++ {
			if got, want := queueViewText(t, next, v), queueViewText(t, fresh, v); got != want {
				t.Errorf("view %d after %T: %q, fresh %q", v, prev, got, want)
			}
		}
		if !next.EventsExtend(first) || queueViewText(t, next, fusefs.QueuePending) != "" {
			t.Errorf("after %T: not the grown queue", prev)
		}
		next.Close()
		fresh.Close()
	}
	if after := queueViewText(t, first, fusefs.QueuePending); after != before || !strings.Contains(after, `"n":1`) {
		t.Errorf("the earlier snapshot's pending view became %q (was %q)", after, before)
	}
}

type foreignSnapshot struct{ fusefs.QueueSnapshot }
