package fusefs

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

func TestPageCacheDecisions(t *testing.T) {
	dir := t.TempDir()
	replace := func(content string) *os.File {
		t.Helper()
		path := filepath.Join(dir, "r")
		if err := os.WriteFile(path+".tmp", []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil { // a new file, as a commit makes
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	const keep, direct = fuse.FOPEN_KEEP_CACHE, fuse.FOPEN_DIRECT_IO
	const ttl = time.Second
	t0 := time.Unix(1000, 0)
	var p pageCache
	open := func(f *os.File, readOnly bool, at time.Time) (*readHandle, uint32) {
		h := &readHandle{f: f}
		return h, p.open(h, f, readOnly, at, ttl)
	}

	a := replace("old")
	if _, got := open(a, true, t0); got&direct == 0 {
		t.Fatalf("first open: flags %#x, want DIRECT_IO (the kernel may hold another size)", got)
	}
	if _, got := open(a, true, t0.Add(ttl/2)); got&direct == 0 {
		t.Fatalf("open within the attribute timeout of the change: flags %#x, want DIRECT_IO", got)
	}
	a1, got := open(a, false, t0.Add(ttl))
	if got&(keep|direct) != 0 {
		t.Fatalf("read-write mount, settled file: flags %#x, want page cache without KEEP_CACHE", got)
	}
	if _, got := open(a, true, t0.Add(ttl)); got&keep == 0 {
		t.Fatalf("read-only mount, settled file: flags %#x, want KEEP_CACHE", got)
	}
	b := replace("new!")
	if h, got := open(b, true, t0.Add(3*ttl)); got&direct == 0 || h.pages != nil {
		t.Fatalf("replacement while the old file is read: flags %#x (registered %v), want DIRECT_IO, unregistered", got, h.pages != nil)
	}
	for h := range p.readers {
		p.release(h)
	}
	_ = a1
	if _, got := open(b, true, t0.Add(3*ttl)); got&direct == 0 {
		t.Fatalf("first open of the replacement: flags %#x, want DIRECT_IO", got)
	}
	if _, got := open(b, true, t0.Add(4*ttl)); got&keep == 0 {
		t.Fatalf("replacement settled: flags %#x, want KEEP_CACHE on a read-only mount", got)
	}
}
