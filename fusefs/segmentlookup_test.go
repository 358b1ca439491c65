package fusefs_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/storhfs/storhfs/core/seglog"
	"github.com/storhfs/storhfs/fusefs"
	"github.com/storhfs/storhfs/internal/engines"
)

// statCounter counts the stats of a log's whole state (StateFiles).
type statCounter struct {
	fusefs.LogStore
	full atomic.Int32
}

func (s *statCounter) StateFiles() ([]fusefs.LogFile, error) {
	s.full.Add(1)
	return s.LogStore.StateFiles()
}

// A segment's view is served from the cached snapshot while the manifest
// and that segment stat as the snapshot saw them, so a lookup of every
// segment (ls -l segments/) stats two files each, not the whole log; a
// change of either file takes a new snapshot.
func TestSegmentViewsCheckTheirOwnFiles(t *testing.T) {
	root := t.TempDir()
	l, err := seglog.Open(root, "audit", seglog.Options{MaxSegmentBytes: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for n := range 40 {
		if _, err := l.Put(rowN(n), ""); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(root, "audit")
	store := &statCounter{LogStore: engines.Logs{}.Open(dir)}
	src := fusefs.NewLogViews(store)
	defer src.Drop()
	latestView(t, src, fusefs.RecordsView) // the first snapshot

	var segments []string
	entries, err := os.ReadDir(filepath.Join(dir, "segments"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".ndjson") {
			segments = append(segments, e.Name())
		}
	}
	if len(segments) < 10 {
		t.Fatalf("%d segments, want many", len(segments))
	}
	before := store.full.Load()
	for _, seg := range segments {
		v := latestView(t, src, "segments/"+seg)
		if want := freshSize(t, dir, "segments/"+seg); v.Size() != want {
			t.Errorf("%s: size %d, want %d", seg, v.Size(), want)
		}
	}
	if got := store.full.Load() - before; got != 0 {
		t.Errorf("%d lookups of unchanged segments stat the whole log %d times, want 0", len(segments), got)
	}

	// An append changes the active segment (and the manifest when it
	// rolls): its view is read again, with the new size.
	active := segments[len(segments)-1]
	old := latestView(t, src, "segments/"+active)
	if _, err := l.Put(rowN(99), ""); err != nil {
		t.Fatal(err)
	}
	now := latestView(t, src, "segments/"+active)
	if store.full.Load() == before {
		t.Error("a lookup after an append reused the old snapshot")
	}
	if now.Key() == old.Key() || now.Size() != freshSize(t, dir, "segments/"+active) {
		t.Errorf("active segment after an append: key %q size %d, before %q size %d", now.Key(), now.Size(), old.Key(), old.Size())
	}

	// A sealed segment rewritten in place (same manifest) is seen too.
	sealed := filepath.Join(dir, "segments", segments[0])
	before = store.full.Load()
	if err := os.Truncate(sealed, 0); err != nil {
		t.Fatal(err)
	}
	if v := latestView(t, src, "segments/"+segments[0]); v.Size() != 0 || store.full.Load() == before {
		t.Errorf("a truncated sealed segment: size %d after %d full stats", v.Size(), store.full.Load()-before)
	}
}

// freshSize is the size of view name in a new source's first snapshot,
// which stats the whole log.
func freshSize(t *testing.T, dir, name string) int64 {
	t.Helper()
	src := fusefs.NewLogViews(engines.Logs{}.Open(dir))
	defer src.Drop()
	return latestView(t, src, name).Size()
}
