package fusefs

import (
	"errors"
	"testing"
)

func TestSnapshotCache(t *testing.T) {
	key, taken, closed := "a", 0, 0
	var fpErr error
	c := &snapshotCache{
		fingerprint: func() (fingerprint, error) { return fingerprint{key: key}, fpErr },
		take: func(prev any) (any, func() error, error) {
			if prev != nil && prev != taken || prev == nil && taken != 0 {
				t.Errorf("snapshot %d taken after %v, want after the cached one", taken+1, prev)
			}
			taken++
			return taken, func() error { closed++; return nil }, nil
		},
	}
	s1, _ := c.acquire()
	s2, _ := c.acquire()
	if s1 != s2 || taken != 1 {
		t.Fatalf("same fingerprint: %d snapshots taken, want 1", taken)
	}
	s1.release()
	s2.release()
	if closed != 0 {
		t.Fatal("the cached snapshot was closed while cached")
	}
	open, _ := c.acquire() // held by a reader across a change
	key = "b"
	s3, _ := c.acquire()
	if s3 == open || taken != 2 {
		t.Fatalf("changed fingerprint: taken %d, want 2", taken)
	}
	if closed != 0 {
		t.Fatal("a snapshot still read was closed")
	}
	open.release()
	if closed != 1 {
		t.Fatalf("replaced snapshot not closed after its last reader: closed=%d", closed)
	}
	s3.release()
	c.drop()
	if closed != 2 {
		t.Fatalf("drop: closed=%d, want 2", closed)
	}
	fpErr = errors.New("gone")
	if _, err := c.acquire(); err == nil {
		t.Fatal("fingerprint error not reported")
	}
}
