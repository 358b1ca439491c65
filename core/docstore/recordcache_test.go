package docstore

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/phpjson"
)

// openCachingStore opens a Store whose record cache's clock runs ahead of
// the file timestamps by more than racyWindow, so that records written by
// the test are old enough to be cached.
func openCachingStore(t *testing.T, root string) *Store {
	t.Helper()
	s := openStore(t, root)
	s.cache.now = func() time.Time { return time.Now().Add(2 * racyWindow) }
	return s
}

func titledRecord(id, title string) []byte {
	return []byte(`{"id":"` + id + `","data":{"title":"` + title + `"}}` + "\n")
}

// writeOutside writes a record file as another process would, without the
// Store: by rename (PHP) or in place.
func writeOutside(t *testing.T, s *Store, id string, content []byte, inPlace bool) {
	t.Helper()
	path := s.RecordPath(id)
	if err := os.MkdirAll(path[:len(path)-len(id)-len(".jsonc")-1], 0o777); err != nil {
		t.Fatal(err)
	}
	if inPlace { // no truncation: a same-size rewrite is never seen empty
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o666)
		if err == nil {
			_, err = f.WriteAt(content, 0)
			if err == nil {
				err = f.Truncate(int64(len(content)))
			}
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(path+".tmp", content, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

func recTitle(t *testing.T, rec *Record) string {
	t.Helper()
	if rec == nil {
		return "<missing>"
	}
	v, _ := rec.Data.Lookup("title")
	str, _ := v.(string)
	return str
}

// getTitle reads id with Get and with GetEach (the query path), which
// must agree, and returns the title.
func getTitle(t *testing.T, s *Store, id string) string {
	t.Helper()
	rec, err := s.Get(id)
	if err != nil {
		t.Fatalf("Get %s: %v", id, err)
	}
	got := recTitle(t, rec)
	err = s.GetEach([]string{id}, func(_ string, r *Record) error {
		if each := recTitle(t, r); each != got {
			t.Errorf("GetEach says %q, Get %q", each, got)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("GetEach %s: %v", id, err)
	}
	return got
}

func cached(s *Store, id string) bool {
	_, ok := s.cache.lookup(id)
	return ok
}

func TestRecordCacheServesRepeatedReads(t *testing.T) {
	s := openCachingStore(t, t.TempDir())
	writeOutside(t, s, id1, titledRecord(id1, "one"), false)
	if got := getTitle(t, s, id1); got != "one" {
		t.Fatalf("title %q", got)
	}
	e, ok := s.cache.lookup(id1)
	if !ok {
		t.Fatal("a record read is not cached")
	}
	// A marked entry for the same file version shows that the next reads
	// come from the cache, not from the file.
	e.data = obj("title", "from the cache")
	s.cache.remember(id1, e)
	if got := getTitle(t, s, id1); got != "from the cache" {
		t.Fatalf("title %q: the unchanged file was read again", got)
	}
}

// Every way another process can change a record is seen by the next read.
func TestRecordCacheSeesOutsideChanges(t *testing.T) {
	s := openCachingStore(t, t.TempDir())
	step := func(name, want string) {
		t.Helper()
		if got := getTitle(t, s, id1); got != want {
			t.Fatalf("%s: title %q, want %q", name, got, want)
		}
	}
	writeOutside(t, s, id1, titledRecord(id1, "aaaa"), false)
	step("first read", "aaaa")

	writeOutside(t, s, id1, titledRecord(id1, "bbbb"), false)
	step("same-size rewrite by rename", "bbbb")

	// Same size, in place, mtime restored to the nanosecond: PHP's
	// validation (mtime in seconds, size) serves the old record here.
	path := s.RecordPath(id1)
	var before unix.Stat_t
	if err := unix.Stat(path, &before); err != nil {
		t.Fatal(err)
	}
	writeOutside(t, s, id1, titledRecord(id1, "cccc"), true)
	if err := unix.UtimesNano(path, []unix.Timespec{before.Atim, before.Mtim}); err != nil {
		t.Fatal(err)
	}
	var after unix.Stat_t
	if err := unix.Stat(path, &after); err != nil {
		t.Fatal(err)
	}
	if after.Ctim == before.Ctim {
		// Coarse timestamps (no multigrain ctime): only racyWindow, which
		// this test's clock skips, keeps such a version out of the cache.
		t.Skip("this kernel gave an in-place rewrite the same ctime")
	}
	step("same-size same-mtime rewrite in place", "cccc")

	writeOutside(t, s, id1, titledRecord(id1, "a longer title"), true)
	step("rewrite in place", "a longer title")

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	step("outside delete", "<missing>")
	if cached(s, id1) {
		t.Fatal("a deleted record stays cached")
	}

	writeOutside(t, s, id1, titledRecord(id1, "back"), false)
	step("recreated", "back")

	if err := s.Delete(id1); err != nil {
		t.Fatal(err)
	}
	step("own delete", "<missing>")
	if _, err := s.Put(obj("title", "own put"), id1); err != nil {
		t.Fatal(err)
	}
	step("own put", "own put")
}

// A record whose ctime is within racyWindow of the clock is not cached: a
// change in the same timestamp tick could otherwise go unseen.
func TestRecordCacheSkipsRecentFiles(t *testing.T) {
	// Options.NowMs (ids, sweeps) does not move the cache's clock.
	s, err := Open(t.TempDir(), "pages", Options{NowMs: func() int64 { return time.Now().Add(time.Hour).UnixMilli() }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writeOutside(t, s, id1, titledRecord(id1, "new"), false)
	if got := getTitle(t, s, id1); got != "new" {
		t.Fatalf("title %q", got)
	}
	if cached(s, id1) {
		t.Fatal("a record changed just now was cached")
	}
}

// What a caller does with a record never changes what the next read gets.
func TestRecordCacheHandsOutCopies(t *testing.T) {
	s := openCachingStore(t, t.TempDir())
	writeOutside(t, s, id1, titledRecord(id1, "kept"), false)
	for range 3 {
		rec, err := s.Get(id1)
		if err != nil {
			t.Fatal(err)
		}
		rec.Data.SetString("title", "changed by the caller")
		rec.Data.SetString("extra", phpjson.NewList(int64(1)))
		err = s.GetEach([]string{id1}, func(_ string, r *Record) error {
			r.Data.SetString("title", "changed by a query caller")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	rec, err := s.Get(id1)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(t, rec.Data); got != `{"title":"kept"}` {
		t.Fatalf("record now reads %s", got)
	}
}

// Unreadable records are never cached and keep failing as without it.
func TestRecordCacheKeepsErrors(t *testing.T) {
	s := openCachingStore(t, t.TempDir())
	writeOutside(t, s, id1, titledRecord(id1, "good"), false)
	getTitle(t, s, id1)
	writeOutside(t, s, id1, []byte(`{"id":"`+id1+`","data":{"title":"tor`), false)
	for range 2 {
		if _, err := s.Get(id1); err == nil {
			t.Fatal("Get of a torn record succeeded")
		}
	}
	if cached(s, id1) {
		t.Fatal("a torn record is cached")
	}
}

func TestRecordCacheBounds(t *testing.T) {
	var c recordCache
	data := phpjson.NewArray(0)
	for i := range 100 {
		c.remember(fmt.Sprint(i), cachedRecord{version: fileVersion{ino: uint64(i), size: recordCacheMaxSize}, data: data})
		if c.bytes > recordCacheBytes || len(c.entries) > recordCacheEntries {
			t.Fatalf("after %d: %d entries, %d bytes", i+1, len(c.entries), c.bytes)
		}
	}
	if want := recordCacheBytes / recordCacheMaxSize; len(c.entries) != want {
		t.Fatalf("%d entries of the largest size, want %d", len(c.entries), want)
	}
	for i := range recordCacheEntries + 10 {
		c.remember(fmt.Sprint("small", i), cachedRecord{version: fileVersion{ino: uint64(i), size: 1}, data: data})
	}
	var sum int64
	for _, e := range c.entries {
		sum += e.version.size
	}
	if len(c.entries) > recordCacheEntries || sum != c.bytes || c.bytes > recordCacheBytes {
		t.Fatalf("%d entries, %d bytes counted, %d summed", len(c.entries), c.bytes, sum)
	}
}

// Readers racing outside rewrites (run with -race) see only whole
// versions, and the last version once the writer is done.
func TestRecordCacheConcurrentReadersAndRewrites(t *testing.T) {
	s := openCachingStore(t, t.TempDir())
	ids := []string{id1, id2, id3}
	for _, id := range ids {
		writeOutside(t, s, id, titledRecord(id, "v000"), false)
	}
	const versions = 200
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := s.GetEach(ids, func(id string, r *Record) error {
					if r == nil {
						return fmt.Errorf("%s missing", id)
					}
					v, _ := r.Data.Lookup("title")
					if str, _ := v.(string); len(str) != 4 || str[0] != 'v' {
						return fmt.Errorf("%s reads %q", id, str)
					}
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := 1; i <= versions; i++ {
		for j, id := range ids {
			writeOutside(t, s, id, titledRecord(id, fmt.Sprintf("v%03d", i)), j == 0 && i%2 == 0)
		}
	}
	close(stop)
	wg.Wait()
	for _, id := range ids {
		if got, want := getTitle(t, s, id), fmt.Sprintf("v%03d", versions); got != want {
			t.Fatalf("%s: %q after the writer finished, want %q", id, got, want)
		}
	}
}

// GetEach over cached, changed, missing and invalid ids delivers each in
// order as Get sees it, and stops at ErrStop inside the cached run too.
func TestRecordCacheGetEachMixed(t *testing.T) {
	s := openCachingStore(t, t.TempDir())
	ids := sequentialIDs(t, 6)
	for i, id := range ids {
		writeOutside(t, s, id, titledRecord(id, fmt.Sprint("v", i)), false)
	}
	readAll := func(list []string) []string {
		var got []string
		err := s.GetEach(list, func(id string, r *Record) error {
			got = append(got, recTitle(t, r))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	readAll(ids) // caches all
	writeOutside(t, s, ids[2], titledRecord(ids[2], "changed"), false)
	os.Remove(s.RecordPath(ids[4]))
	list := []string{ids[0], ids[1], ids[2], "not-an-id", ids[3], ids[4], ids[5], ids[0]}
	want := "[v0 v1 changed <missing> v3 <missing> v5 v0]"
	for range 2 {
		if got := fmt.Sprint(readAll(list)); got != want {
			t.Fatalf("GetEach gave %s, want %s", got, want)
		}
	}
	n := 0
	err := s.GetEach(ids, func(string, *Record) error {
		n++
		if n == 2 {
			return ErrStop
		}
		return nil
	})
	if err != nil || n != 2 {
		t.Fatalf("ErrStop: %d calls, %v", n, err)
	}
}
