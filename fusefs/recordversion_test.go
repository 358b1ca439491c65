package fusefs

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// TestRecordNodeKeepsPagesOfItsVersionOnly: a node keeps the kernel's pages
// across opens only while the opened file is the one it was looked up as,
// and never again once an open found another file, even when the record
// returns to the same size and mtime (a same-size rewrite within one mtime
// tick): it is retired, which asks the kernel (once) to drop it.
func TestRecordNodeKeepsPagesOfItsVersionOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r")
	mtime := time.Unix(1700000000, 0)
	write := func(content string, replace bool) {
		t.Helper()
		if replace { // a new file renamed over the old one, as a commit or PHP's put does
			if err := os.WriteFile(path+".tmp", []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".tmp", path); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(path, []byte(content), 0o644); err != nil { // in place
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	open := func() *os.File {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	notified := 0
	c := &collectionNode{m: &mountState{runNotify: func(func()) { notified++ }}}
	const keep, direct = fuse.FOPEN_KEEP_CACHE, fuse.FOPEN_DIRECT_IO

	write("v1", true)
	v1, ok := storedFileOf(open())
	if !ok {
		t.Fatal("no stat of the stored file")
	}
	r := &recordNode{c: c, id: "x", version: v1}
	for i := 0; i < 2; i++ {
		if got := r.readFlags(c.m, nil, open()); got&keep == 0 || got&direct != 0 {
			t.Fatalf("open %d of the node's own version: flags %#x, want KEEP_CACHE", i, got)
		}
	}
	if !r.standsFor(v1) || notified != 0 {
		t.Fatalf("a node read as its version no longer stands for it (notified %d)", notified)
	}

	write("v2", true) // same size, same mtime, another file
	v2, _ := storedFileOf(open())
	if v2 == v1 {
		t.Fatal("a same-size same-mtime replacement has the old version's identity")
	}
	if r.standsFor(v2) {
		t.Fatal("the node of v1 stands for a lookup that found v2")
	}
	if got := r.readFlags(c.m, nil, open()); got&direct == 0 || got&keep != 0 {
		t.Fatalf("open after a replacement: flags %#x, want DIRECT_IO", got)
	}
	if r.standsFor(v1) || notified != 1 {
		t.Fatalf("after an open found another file: stands for v1 %v, notifications %d; want retired, 1", r.standsFor(v1), notified)
	}
	r.retire()
	if notified != 1 {
		t.Fatalf("a second retire notified again (%d)", notified)
	}

	fresh := &recordNode{c: c, id: "x", version: v2}
	time.Sleep(10 * time.Millisecond) // past a coarse clock tick, where ctimes have no finer grain
	write("v3", false)                // in place, same size, mtime set back: the ctime still moves
	if got := fresh.readFlags(c.m, nil, open()); got&direct == 0 {
		t.Fatalf("open after an in-place same-size same-mtime rewrite: flags %#x, want DIRECT_IO", got)
	}

	none := &recordNode{c: c, id: "x"}
	if !none.standsFor(storedFile{}) || none.standsFor(v2) {
		t.Fatal("a node of no version must stand for lookups that find none, and only those")
	}
	if got := none.readFlags(c.m, nil, open()); got&keep != 0 {
		t.Fatalf("a node of no version kept pages: flags %#x", got)
	}
}
