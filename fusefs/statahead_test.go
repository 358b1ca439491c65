package fusefs

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

func statAheadFixture(t *testing.T, n int) (*collectionNode, *fakeStore, []string) {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("0190a1b2-c3d4-7e5f-8a6b-%012d", i)
	}
	s := newFakeStore(t, ids...)
	return newTestCollection(s), s, ids
}

// waitStatted waits until a goroutine has stored its stat of pos.
func waitStatted(t *testing.T, a *statAhead, pos int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		a.mu.Lock()
		done := a.ring[pos%statAheadWindow].pos == pos+1
		a.mu.Unlock()
		if done {
			return
		}
	}
	t.Fatalf("position %d never stat-ed", pos)
}

// waitStattedUpTo waits until positions 0..last are all stat-ed.
func waitStattedUpTo(t *testing.T, a *statAhead, last int) {
	t.Helper()
	for pos := 0; pos <= last; pos++ {
		waitStatted(t, a, pos)
	}
}

// waitParked waits until every goroutine waits at the window's end: none
// can stat anything more until a lookup moves the window.
func waitParked(t *testing.T, a *statAhead) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		a.mu.Lock()
		parked := a.parked
		a.mu.Unlock()
		if parked == statAheadWorkers {
			return
		}
	}
	t.Fatal("the stat-ahead goroutines never all parked at the window's end")
}

func stopAndWait(t *testing.T, a *statAhead) {
	t.Helper()
	a.stop()
	waitEnded(t, a, "after stop")
}

func waitEnded(t *testing.T, a *statAhead, when string) {
	t.Helper()
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
		t.Fatalf("stat-ahead goroutines still running %s", when)
	}
}

func TestStatAheadGivesTheStoredAttributes(t *testing.T) {
	c, s, ids := statAheadFixture(t, 40)
	a := startStatAhead(c, s, ids, 0)
	defer stopAndWait(t, a)
	waitStattedUpTo(t, a, len(ids)-1)
	for pos, id := range ids {
		pre := a.take(pos)
		if pre == nil {
			t.Fatalf("position %d: no stat taken ahead", pos)
		}
		var ahead, inline fuse.EntryOut
		if _, errno := c.lookupRecord(id, &ahead, pre); errno != 0 {
			t.Fatalf("lookup %s with the stat taken ahead: %v", id, errno)
		}
		if _, errno := c.lookupRecord(id, &inline, nil); errno != 0 {
			t.Fatalf("lookup %s: %v", id, errno)
		}
		if ahead.Attr != inline.Attr {
			t.Errorf("%s: attributes %+v, want %+v", id, ahead.Attr, inline.Attr)
		}
		if again := a.take(pos); again != nil {
			t.Fatalf("position %d handed out twice", pos)
		}
	}
	waitEnded(t, a, "after the last position")
}

// A stat taken before a change made through the mount is not used: the
// lookup stats again and sees the change.
func TestStatAheadDropsStatsOlderThanAMutation(t *testing.T) {
	c, s, ids := statAheadFixture(t, 3)
	a := startStatAhead(c, s, ids, 0)
	defer stopAndWait(t, a)
	waitStattedUpTo(t, a, 2)

	longer := []byte(fmt.Sprintf(`{"id":"%s","more":"content"}`, ids[0]))
	if errno := c.putLocked(s, ids[0], longer, nil, false); errno != 0 {
		t.Fatal(errno)
	}
	if pre := a.take(0); pre != nil {
		t.Fatalf("a stat from before a put was handed out (size %d)", pre.fi.Size())
	}
	var out fuse.EntryOut
	if _, errno := c.lookupRecord(ids[0], &out, nil); errno != 0 || out.Size != uint64(len(longer)) {
		t.Fatalf("lookup after the put: size %d, %v; want %d", out.Size, errno, len(longer))
	}

	if errno := c.unlinkRecord(ids[1]); errno != 0 {
		t.Fatal(errno)
	}
	if pre := a.take(1); pre != nil {
		t.Fatal("a stat from before a delete was handed out")
	}
}

func TestStatAheadDropsOldStats(t *testing.T) {
	c, s, ids := statAheadFixture(t, 2)
	a := startStatAhead(c, s, ids, 0)
	defer stopAndWait(t, a)
	waitStatted(t, a, 0)
	a.mu.Lock()
	a.ring[0].at = time.Now().Add(-2 * maxStatAge)
	a.mu.Unlock()
	if pre := a.take(0); pre != nil {
		t.Fatal("a stat older than maxStatAge was handed out")
	}
}

// A record deleted by another process after the listing: the stat taken
// ahead says so, and the lookup fails with ENOENT as an inline one would.
func TestStatAheadMissingRecord(t *testing.T) {
	c, s, ids := statAheadFixture(t, 2)
	if err := os.Remove(s.path(ids[1])); err != nil {
		t.Fatal(err)
	}
	a := startStatAhead(c, s, ids, 0)
	defer stopAndWait(t, a)
	waitStatted(t, a, 1)
	var out fuse.EntryOut
	if _, errno := c.lookupRecord(ids[1], &out, a.take(1)); errno != syscall.ENOENT {
		t.Fatalf("lookup of a vanished record: %v, want ENOENT", errno)
	}
}

// The goroutines stay within the window past the latest lookup, and a
// lookup that skips ahead moves it along.
func TestStatAheadStaysWithinItsWindow(t *testing.T) {
	c, s, ids := statAheadFixture(t, statAheadWindow+200)
	a := startStatAhead(c, s, ids, 0)
	defer stopAndWait(t, a)
	waitStattedUpTo(t, a, statAheadWindow-1)
	waitParked(t, a)
	a.mu.Lock()
	next := a.next
	a.mu.Unlock()
	if next != statAheadWindow {
		t.Fatalf("stat-ed up to position %d with no lookup, want %d", next, statAheadWindow)
	}
	if pre := a.take(150); pre == nil {
		t.Fatal("position 150: no stat taken ahead")
	}
	waitStatted(t, a, 150+statAheadWindow) // the window moved with the lookup
}

func TestStatAheadStops(t *testing.T) {
	c, s, ids := statAheadFixture(t, statAheadWindow+10)
	a := startStatAhead(c, s, ids, 0)
	waitStatted(t, a, statAheadWindow-1)
	stopAndWait(t, a) // parked at the window's end: stop must wake it
}
