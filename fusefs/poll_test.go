package fusefs

import (
	"io"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestPollerFindsOtherHostsChanges: what inotify never reports on shared
// storage (another host's writes) is found by comparing stat data: a record
// created, one replaced by rename with the same size in the same second,
// one deleted, a new bucket, a queue append and a new collection; an
// idle poll finds nothing.
func TestPollerFindsOtherHostsChanges(t *testing.T) {
	t.Run("buckets kept open", func(t *testing.T) { testPollerFinds(t, 4096) })
	t.Run("buckets stat-ed by name", func(t *testing.T) { testPollerFinds(t, 0) })
}

// testPollerFinds runs TestPollerFindsOtherHostsChanges with a poller that
// may keep keptFDs bucket directories open.
func testPollerFinds(t *testing.T, keptFDs int) {
	root := t.TempDir()
	const (
		a = "0190d8c2-7f4a-7b3e-9c1d-2d5dba6274da"
		b = "0190d8c2-7f4a-7b3e-9c1d-2d5dba6275da"
		c = "0190d8c2-7f4a-7b3e-9c1d-2d5dba6276db"
		d = "0190d8c2-7f4a-7b3e-9c1d-2d5dba6277ee" // a new bucket
	)
	put := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(filepath.Dir(p), ".x.tmp")
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil { // as storh writes: temp + rename
			t.Fatal(err)
		}
	}
	put("pages/data/da/"+a+".jsonc", `{"v":1}`)
	put("pages/data/da/"+b+".jsonc", `{"v":1}`)
	put("jobs/queue.log", "e1\n")

	m := newMountState(testCatalog(root), false, log.New(io.Discard, "", 0), 0)
	m.runNotify = func(func()) {} // no kernel here
	w, err := newWatcher(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.w.Close()
	p := newPoller(w, time.Second)
	p.maxKeptFDs = keptFDs
	defer p.stop()
	taken := func() []invalidation {
		w.mu.Lock()
		defer w.mu.Unlock()
		got := slices.SortedFunc(maps.Keys(w.pending), func(x, y invalidation) int {
			if x.mount+"/"+x.name < y.mount+"/"+y.name {
				return -1
			}
			return 1
		})
		w.pending = map[invalidation]bool{}
		return got
	}

	p.poll(false)
	p.poll(true)
	if got := taken(); len(got) != 0 {
		t.Fatalf("an idle poll announced %v", got)
	}
	if p.keptFDs != min(keptFDs, 1) {
		t.Errorf("%d bucket directories kept open, want %d", p.keptFDs, min(keptFDs, 1))
	}

	put("pages/data/da/"+a+".jsonc", `{"v":2}`) // same size, same second
	if err := os.Remove(filepath.Join(root, "pages/data/da/"+b+".jsonc")); err != nil {
		t.Fatal(err)
	}
	put("pages/data/db/"+c+".jsonc", `{"v":1}`)
	put("pages/data/ee/"+d+".jsonc", `{"v":1}`)
	f, err := os.OpenFile(filepath.Join(root, "jobs/queue.log"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("e2\n")
	f.Close()
	put("notes/data/00/0190d8c2-7f4a-7b3e-9c1d-2d5dba627800.jsonc", `{}`)
	p.poll(true)

	want := map[invalidation]bool{
		{mount: "pages", name: a + ".jsonc", record: root + "/pages/data/da/" + a + ".jsonc"}: true,
		{mount: "pages", name: b + ".jsonc", record: root + "/pages/data/da/" + b + ".jsonc"}: true,
		{mount: "pages", name: c + ".jsonc", record: root + "/pages/data/db/" + c + ".jsonc"}: true,
		{mount: "pages", name: d + ".jsonc", record: root + "/pages/data/ee/" + d + ".jsonc"}: true,
		{mount: "jobs"}:            true,
		{mount: "", name: "notes"}: true,
	}
	got := taken()
	for _, inv := range got {
		delete(want, inv)
	}
	if len(want) > 0 {
		t.Errorf("not announced: %v (announced %v)", slices.Collect(maps.Keys(want)), got)
	}
	p.stop()
	if p.keptFDs != 0 {
		t.Errorf("%d bucket directories still open after stop", p.keptFDs)
	}
}
