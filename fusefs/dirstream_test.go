package fusefs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/shard"
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

func openTestDir(t *testing.T, c *collectionNode, s RecordStore) (*collectionDirHandle, uint32) {
	t.Helper()
	fh, flags, errno := c.openDir(s)
	if errno != 0 {
		t.Fatalf("opendir: %v", errno)
	}
	return fh.(*collectionDirHandle), flags
}

func TestCollectionListing(t *testing.T) {
	var ids []string
	for i := 300; i > 0; i-- { // created out of order
		ids = append(ids, fmt.Sprintf("0190a1b2-c3d4-7e5f-8a6b-%012d", i))
	}
	s := newFakeStore(t, ids...)
	coll := newTestCollection(s)
	coll.createScratch("4913", 0)
	coll.createScratch(".x.swp", 0)

	d, flags := openTestDir(t, coll, s)
	if flags != 0 {
		t.Errorf("a store without a directory: flags %#x, want none", flags)
	}
	names := listAll(t, d)
	if len(names) != 2+len(ids)+2 {
		t.Fatalf("listed %d names, want %d", len(names), 2+len(ids)+2)
	}
	if names[0] != "." || names[1] != ".." {
		t.Errorf("listing starts with %q, want . and ..", names[:2])
	}
	records := names[2 : 2+len(ids)]
	for i := 1; i < len(records); i++ {
		if records[i-1] >= records[i] {
			t.Fatalf("records not in id order at %d: %s >= %s", i, records[i-1], records[i])
		}
	}
	if tail := names[2+len(ids):]; tail[0] != ".x.swp" || tail[1] != "4913" {
		t.Errorf("scratch tail = %v, want [.x.swp 4913]", tail)
	}

	for _, off := range []uint64{5, 0, 1, 2, uint64(len(ids)), uint64(len(names))} {
		if errno := d.Seekdir(context.Background(), off); errno != 0 {
			t.Fatal(errno)
		}
		e, _ := d.Readdirent(context.Background())
		if off == uint64(len(names)) {
			if e != nil {
				t.Errorf("after seek to the end: %+v", e)
			}
			continue
		}
		if e == nil || e.Name != names[off] || e.Off != off+1 {
			t.Errorf("after seek to %d: %+v, want %s at %d", off, e, names[off], off+1)
		}
	}
	if errno := d.Seekdir(context.Background(), 1<<40); errno != 0 {
		t.Fatal(errno)
	}
	if e, _ := d.Readdirent(context.Background()); e != nil {
		t.Errorf("after seek past the end: %+v", e)
	}
	d.Releasedir(context.Background(), 0)
}

// layoutStore is a fake store that lists a real collection directory.
type layoutStore struct {
	*fakeStore
	coll string
}

func (s layoutStore) ListIDs(prev *shard.IDList, now time.Time) (*shard.IDList, bool, error) {
	return shard.ListIDs(s.coll, prev, now)
}

func (s layoutStore) StatRecord(id string) (os.FileInfo, error) {
	return os.Stat(shard.RecordPath(s.coll, id))
}

func writeRecordFile(t *testing.T, coll, id string) {
	t.Helper()
	p := shard.RecordPath(coll, id)
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{}"), 0o666); err != nil {
		t.Fatal(err)
	}
}

func TestListingKernelCache(t *testing.T) {
	coll := t.TempDir()
	for i := range 40 {
		writeRecordFile(t, coll, fmt.Sprintf("0190a1b2-c3d4-7e5f-8a6b-%02x%010d", i%7, i))
	}
	s := layoutStore{newFakeStore(t), coll}
	c := newTestCollection(s)
	cacheDir := uint32(fuse.FOPEN_CACHE_DIR | fuse.FOPEN_KEEP_CACHE)
	open := func() (*collectionDirHandle, uint32) { return openTestDir(t, c, s) }

	d1, f1 := open()
	if f1 != 0 {
		t.Errorf("first open: flags %#x, want 0 (drops whatever the kernel had)", f1)
	}
	if n := len(listAll(t, d1)); n != 2+40 {
		t.Fatalf("listed %d, want . and .. and 40 records", n)
	}
	d1.Releasedir(context.Background(), 0)
	d2, f2 := open()
	if f2 != cacheDir {
		t.Errorf("unchanged listing: flags %#x, want CACHE_DIR|KEEP_CACHE", f2)
	}

	// A change while d2 (allowed to fill the kernel cache) is open: no
	// open may use the cache until d2 is closed and one more open has
	// dropped the kernel's copy.
	writeRecordFile(t, coll, "0190a1b2-c3d4-7e5f-8a6b-ff0000000001")
	d3, f3 := open()
	if f3 != 0 {
		t.Errorf("changed listing: flags %#x, want 0", f3)
	}
	if n := len(listAll(t, d3)); n != 2+41 {
		t.Errorf("changed listing has %d, want . and .. and 41 records", n)
	}
	if _, f := open(); f != 0 {
		t.Errorf("open while an old cache filler is open: flags %#x, want 0", f)
	}
	d2.Releasedir(context.Background(), 0)
	if _, f := open(); f != 0 {
		t.Errorf("first open after the old filler closed: flags %#x, want 0", f)
	}
	if _, f := open(); f != cacheDir {
		t.Errorf("then: flags %#x, want CACHE_DIR|KEEP_CACHE", f)
	}

	// Scratch files are part of the listing too.
	c.createScratch("4913", 0)
	if _, f := open(); f != 0 {
		t.Errorf("after a new scratch file: flags %#x, want 0", f)
	}
}

// dirIDs lists the records of the DocStore collection directory coll.
func dirIDs(coll string) listIDs {
	return func(prev *shard.IDList, now time.Time) (*shard.IDList, bool, error) {
		return shard.ListIDs(coll, prev, now)
	}
}

func TestRecordListingRacyBucket(t *testing.T) {
	coll := t.TempDir()
	id := "0190a1b2-c3d4-7e5f-8a6b-aa0000000001"
	writeRecordFile(t, coll, id)
	var l recordListing
	now := time.Now()
	first, err := l.open(dirIDs(coll), nil, now, false)
	if err != nil || len(first.ids) != 1 {
		t.Fatalf("%v %v", first.ids, err)
	}
	writeRecordFile(t, coll, "0190a1b2-c3d4-7e5f-8a6b-aa0000000002")
	second, err := l.open(dirIDs(coll), nil, now, false)
	if err != nil || len(second.ids) != 2 || second.kernelCache {
		t.Fatalf("a record added in the same second: ids %v, kernel cache %v, err %v", second.ids, second.kernelCache, err)
	}
}

// A listing whose entries were then looked up one by one (ls -l) is next
// read from the mount, as READDIRPLUS, not from the kernel's cache, which
// would send a LOOKUP per entry; once listings are no longer followed by
// lookups (ls, find -name) the kernel may cache again.
func TestListingAfterLookupsSkipsKernelCache(t *testing.T) {
	coll := t.TempDir()
	var ids []string
	for i := range 20 {
		id := fmt.Sprintf("0190a1b2-c3d4-7e5f-8a6b-%02x%010d", i%5, i)
		writeRecordFile(t, coll, id)
		ids = append(ids, id)
	}
	s := layoutStore{newFakeStore(t), coll}
	c := newTestCollection(s)
	cacheDir := uint32(fuse.FOPEN_CACHE_DIR | fuse.FOPEN_KEEP_CACHE)
	listOnce := func(lookups int) uint32 {
		d, flags := openTestDir(t, c, s)
		listAll(t, d)
		for _, id := range ids[:lookups] {
			var out fuse.EntryOut
			if _, errno := c.lookupRecord(id, &out, nil); errno != 0 {
				t.Fatalf("lookup %s: %v", id, errno)
			}
		}
		d.Releasedir(context.Background(), 0)
		return flags
	}
	listOnce(0)
	if f := listOnce(20); f != cacheDir {
		t.Fatalf("unchanged listing: flags %#x, want the kernel cache", f)
	}
	if f := listOnce(10); f != 0 {
		t.Errorf("after every entry was looked up: flags %#x, want 0", f)
	}
	if f := listOnce(0); f != cacheDir {
		t.Errorf("after half the entries were looked up: flags %#x, want the kernel cache", f)
	}
}

// Where the kernel caches the collection's entries for the long timeout
// (the watcher covers it), a listing followed by a lookup of every entry
// (ls -l) stays in the kernel's cache: from there the entries cost no
// LOOKUP, they are still cached.
func TestListingAfterLookupsKeepsKernelCacheWhenCovered(t *testing.T) {
	coll := t.TempDir()
	var ids []string
	for i := range 20 {
		id := fmt.Sprintf("0190a1b2-c3d4-7e5f-8a6b-%02x%010d", i%5, i)
		writeRecordFile(t, coll, id)
		ids = append(ids, id)
	}
	s := layoutStore{newFakeStore(t), coll}
	c := newTestCollection(s)
	c.m.coverage.timeout = time.Hour
	c.m.coverage.set(c.rel, true)
	cacheDir := uint32(fuse.FOPEN_CACHE_DIR | fuse.FOPEN_KEEP_CACHE)
	for round := range 3 {
		d, flags := openTestDir(t, c, s)
		listAll(t, d)
		for _, id := range ids {
			var out fuse.EntryOut
			if _, errno := c.lookupRecord(id, &out, nil); errno != 0 {
				t.Fatalf("lookup %s: %v", id, errno)
			}
		}
		d.Releasedir(context.Background(), 0)
		if round > 0 && flags != cacheDir {
			t.Errorf("listing %d, after every entry was looked up: flags %#x, want the kernel cache", round, flags)
		}
	}
}
