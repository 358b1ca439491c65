package seglog

import (
	"os"
	"testing"
)

// openDescriptors counts this process's open descriptors.
func openDescriptors(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(fds)
}

// A chain of snapshots, each extended from the one before, holds each
// segment's descriptor once, not once per snapshot (a mount keeps many
// snapshots of a log alive and ran out of descriptors), and each stays
// readable whichever of them is closed first.
func TestSnapshotAfterSharesDescriptors(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 256)
	defer l.Close()
	r := NewReader(root + "/events")
	for i := 1; i <= 40; i++ {
		if _, err := l.Put(dataN(i), testID(i)); err != nil {
			t.Fatal(err)
		}
	}
	before := openDescriptors(t)
	first, err := r.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	segments := len(first.Segments())
	if segments < 10 {
		t.Fatalf("%d segments, want a log of many", segments)
	}
	base := openDescriptors(t)
	chain := []*Snapshot{first}
	for i := 41; i <= 60; i++ {
		if _, err := l.Put(dataN(i), testID(i)); err != nil {
			t.Fatal(err)
		}
		s, err := r.SnapshotAfter(chain[len(chain)-1])
		if err != nil {
			t.Fatal(err)
		}
		chain = append(chain, s)
	}
	// The writer may have rolled to new segments meanwhile: those are new
	// descriptors, once each.
	grown := len(chain[len(chain)-1].Segments()) - segments
	if got := openDescriptors(t) - base; got > grown+1 {
		t.Fatalf("20 extended snapshots of %d segments opened %d descriptors, want at most %d", segments, got, grown+1)
	}
	full, err := r.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	want := snapshotDump(t, full, []string{testID(1), testID(60)})
	full.Close()
	// Close all but the last, oldest first: the last still reads every
	// segment through the shared descriptors.
	last := chain[len(chain)-1]
	for _, s := range chain[:len(chain)-1] {
		s.Close()
	}
	if got := snapshotDump(t, last, []string{testID(1), testID(60)}); got != want {
		t.Fatalf("after closing its predecessors:\n%s\nwant:\n%s", got, want)
	}
	last.Close()
	// The writer's active segment may have changed: one descriptor either way.
	if got := openDescriptors(t); got > before+1 {
		t.Fatalf("%d descriptors open after closing every snapshot, want at most %d", got, before+1)
	}
}
