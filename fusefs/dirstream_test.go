package fusefs

import (
	"context"
	"fmt"
	"testing"
)

func listAll(t *testing.T, d *collectionDirHandle) []string {
	t.Helper()
	var names []string
	for {
		e, errno := d.Readdirent(context.Background())
		if errno != 0 {
			t.Fatalf("readdirent: %v", errno)
		}
		if e == nil {
			return names
		}
		if e.Off != uint64(len(names)+1) {
			t.Fatalf("entry %q has offset %d, want %d", e.Name, e.Off, len(names)+1)
		}
		names = append(names, e.Name)
	}
}

func TestCollectionListing(t *testing.T) {
	// More ids than one walk batch, created out of order.
	var ids []string
	for i := 2*walkBatch + 7; i > 0; i-- {
		ids = append(ids, fmt.Sprintf("0190a1b2-c3d4-7e5f-8a6b-%012d", i))
	}
	s := newFakeStore(t, ids...)
	coll := newTestCollection(s)
	coll.createScratch("4913", 0)
	coll.createScratch(".x.swp", 0)

	d := &collectionDirHandle{c: coll, store: s}
	names := listAll(t, d)
	if len(names) != len(ids)+2 {
		t.Fatalf("listed %d names, want %d", len(names), len(ids)+2)
	}
	for i := 1; i < len(ids); i++ {
		if names[i-1] >= names[i] {
			t.Fatalf("records not in id order at %d: %s >= %s", i, names[i-1], names[i])
		}
	}
	if names[len(ids)] != ".x.swp" || names[len(ids)+1] != "4913" {
		t.Errorf("scratch tail = %v, want [.x.swp 4913]", names[len(ids):])
	}

	// Seeking back restarts; seeking forward skips.
	if errno := d.Seekdir(context.Background(), 5); errno != 0 {
		t.Fatal(errno)
	}
	e, _ := d.Readdirent(context.Background())
	if e == nil || e.Name != names[5] || e.Off != 6 {
		t.Errorf("after seek to 5: %+v, want %s at 6", e, names[5])
	}
	d.Releasedir(context.Background(), 0)

	// A released handle's walk goroutine is stopped; a fresh one lists again.
	d2 := &collectionDirHandle{c: coll, store: s}
	if again := listAll(t, d2); len(again) != len(names) {
		t.Errorf("second listing: %d names, want %d", len(again), len(names))
	}
}

func TestListingStopsEarly(t *testing.T) {
	var ids []string
	for i := range 5 * walkBatch {
		ids = append(ids, fmt.Sprintf("0190a1b2-c3d4-7e5f-8a6b-%012d", i))
	}
	s := newFakeStore(t, ids...)
	coll := newTestCollection(s)
	d := &collectionDirHandle{c: coll, store: s}
	d.Readdirent(context.Background())
	w := d.walk
	d.Releasedir(context.Background(), 0)
	// The walk goroutine must finish (close its channel) after stop.
	for range w.batches {
	}
}
