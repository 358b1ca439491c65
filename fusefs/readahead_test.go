package fusefs

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"storhfs/shard"
)

func TestSequenceHintsOnlySequentialAccess(t *testing.T) {
	const n = 200
	half := readAheadWindow / 2
	steps := []struct {
		pos      int
		from, to int
	}{
		{0, 1, 1 + readAheadWindow}, // a walk from the start
		{1, 0, 0},                   // window still full
		{half, 0, 0},                // not sequential (jump): reset
		{half + 1, half + 2, half + 2 + readAheadWindow},
		{half + 2, 0, 0},
		{10, 0, 0},                     // backwards: reset
		{11, 12, 12 + readAheadWindow}, // sequential again
		{n - 1, 0, 0},                  // jump to the end
	}
	var s sequence
	for i, st := range steps {
		from, to := s.access(st.pos, n)
		if from == to {
			from, to = 0, 0
		}
		if from != st.from || to != st.to {
			t.Fatalf("step %d: access(%d) = [%d, %d), want [%d, %d)", i, st.pos, from, to, st.from, st.to)
		}
	}
}

func TestSequenceRefillsHalfWayAndStopsAtTheEnd(t *testing.T) {
	const n = readAheadWindow * 3
	var s sequence
	hinted := map[int]int{}
	for pos := range n {
		from, to := s.access(pos, n)
		for p := from; p < to; p++ {
			hinted[p]++
		}
		// Every position after the first is hinted before it is reached.
		if pos > 0 && hinted[pos] == 0 {
			t.Fatalf("position %d read before it was hinted", pos)
		}
	}
	for p := 1; p < n; p++ {
		if hinted[p] != 1 {
			t.Fatalf("position %d hinted %d times, want once", p, hinted[p])
		}
	}
	if hinted[n] != 0 || hinted[0] != 0 {
		t.Fatalf("hinted outside the listing: %v", hinted)
	}
}

type hintLog struct {
	mu    sync.Mutex
	hints []hint
}

func (l *hintLog) run(h hint) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hints = append(l.hints, h)
}

func (l *hintLog) paths(kind hintKind) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, h := range l.hints {
		if h.kind == kind {
			out = append(out, h.path)
		}
	}
	return out
}

func TestReadAheadHintsTheNextRecordsOfTheListing(t *testing.T) {
	collection := t.TempDir()
	var ids []string
	for i := range 100 {
		id := fmt.Sprintf("018f3173-7000-7000-8000-0000000000%02x", i)
		ids = append(ids, id)
		path := shard.RecordPath(collection, id)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(`{"id":"`+id+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log1 hintLog
	store := layoutStore{newFakeStore(t), collection}
	m := newMountState(fakeCatalog{store: store}, false, log.New(io.Discard, "", 0), 0)
	m.readAhead.close()
	m.readAhead = newReadAheadPool(log1.run)
	c := &collectionNode{m: m, rel: "c"}

	// Nothing is hinted before the collection was listed.
	c.readAhead(ids[0], hintContent)
	if _, err := c.listing.open(collection, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[:3] {
		c.readAhead(id, hintContent)
	}
	c.readAhead(ids[50], hintInode) // the first lookup: starts its own sequence
	c.readAhead("018f3173-7000-7000-8000-ffffffffffff", hintInode)
	m.readAhead.close()

	var want []string
	for _, id := range ids[1 : 1+readAheadWindow] {
		want = append(want, shard.RecordPath(collection, id))
	}
	got := log1.paths(hintContent)
	slices.Sort(got) // workers run hints in any order
	if !slices.Equal(got, want) {
		t.Fatalf("content hints: got %d paths, want %d (%s to %s)", len(got), len(want), want[0], want[len(want)-1])
	}
	if got := log1.paths(hintInode); len(got) != 0 {
		t.Fatalf("a lookup out of sequence hinted %q", got)
	}
}

func TestReadAheadPoolDropsHintsWhenClosedOrFull(t *testing.T) {
	block := make(chan struct{})
	p := newReadAheadPool(func(hint) { <-block })
	queued := 0
	for range readAheadWorkers + readAheadQueue + 10 {
		if p.offer(hint{path: "x"}) {
			queued++
		}
	}
	if queued > readAheadWorkers+readAheadQueue {
		t.Fatalf("queued %d hints, more than workers plus queue", queued)
	}
	close(block)
	p.close()
	if p.offer(hint{path: "x"}) {
		t.Fatal("a closed pool took a hint")
	}
	p.close() // twice is fine
}

func TestHintRunOnMissingFileIsHarmless(t *testing.T) {
	dir := t.TempDir()
	hint{path: filepath.Join(dir, "gone"), kind: hintContent}.run()
	hint{path: filepath.Join(dir, "gone"), kind: hintInode}.run()
	path := filepath.Join(dir, "here")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	hint{path: path, kind: hintContent}.run()
	if b, err := os.ReadFile(path); err != nil || string(b) != "x" {
		t.Fatalf("hinted file changed: %q %v", b, err)
	}
}
