package fusefs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"
)

func TestPageCacheDecisions(t *testing.T) {
	dir := t.TempDir()
	open := func(name, content string) *os.File {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path+".tmp", []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil { // a replacement, as a commit does
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
	var p pageCache
	a1 := &readHandle{f: open("r", "old")}
	if got := p.open(a1, a1.f, true); got&(keep|direct) != 0 {
		t.Fatalf("first open: flags %#x, want neither KEEP_CACHE nor DIRECT_IO (unknown pages are dropped)", got)
	}
	a2 := &readHandle{f: a1.f}
	if got := p.open(a2, a2.f, true); got&keep == 0 {
		t.Fatalf("second open of the same file on a read-only mount: flags %#x, want KEEP_CACHE", got)
	}
	if got := p.open(&readHandle{f: a1.f}, a1.f, false); got&keep != 0 {
		t.Fatalf("read-write mount: flags %#x, want no KEEP_CACHE", got)
	}
	b := &readHandle{f: open("r", "new!")}
	if got := p.open(b, b.f, true); got&direct == 0 {
		t.Fatalf("open of a replacement while the old file is read: flags %#x, want DIRECT_IO", got)
	}
	if b.pages != nil {
		t.Fatal("a direct handle must not be registered")
	}
	for _, h := range []*readHandle{a1, a2} {
		p.release(h)
	}
	for h := range p.readers {
		p.release(h)
	}
	b2 := &readHandle{f: b.f}
	if got := p.open(b2, b2.f, true); got&(keep|direct) != 0 {
		t.Fatalf("first caching open of the replacement: flags %#x, want the old pages dropped", got)
	}
}
