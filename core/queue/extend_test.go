package queue

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// extendSim drives random changes to one queue.log: operations through the
// package's write API, raw appended lines (torn, corrupt, without ts), and
// truncation, in-place rewrites and replacement by rename.
type extendSim struct {
	t     *testing.T
	rng   *rand.Rand
	dir   string
	path  string
	clock *testClock
	q     *Queue
	ids   []string // ids raw events and API calls pick from
	torn  string   // the rest of the torn line appended last ("" = none)
}

// extendStep is one change to queue.log and whether the next snapshot may
// extend the previous one.
type extendStep int

const (
	stepAPI extendStep = iota
	stepLines
	stepTorn
	stepFinishTorn
	stepCorrupt
	stepNone
	stepTruncate // extends when only an invalid tail was cut
	stepRewrite  // in place, same inode: never extends
	stepReplace  // rename over queue.log: never extends
	numSteps
)

var stepWeights = [numSteps]int{stepAPI: 30, stepLines: 25, stepTorn: 8, stepFinishTorn: 8, stepCorrupt: 6, stepNone: 5, stepTruncate: 6, stepRewrite: 3, stepReplace: 3}

func newExtendSim(t *testing.T, seed uint64) *extendSim {
	dir := t.TempDir()
	x := &extendSim{
		t: t, rng: rand.New(rand.NewPCG(seed, 1)), dir: dir, path: filepath.Join(dir, logName),
		clock: &testClock{now: 1700000000},
		ids: []string{
			"018bcfe5-6800-7000-8000-00000000000a", "018bcfe5-6801-7000-8000-00000000000b",
			"018bcfe5-6802-7000-8000-00000000000c", "018bcfe5-6803-7000-8000-00000000000d",
			"018BCFE5-6803-7000-8000-00000000000D", // another job: ids are case-sensitive
		},
	}
	x.q = openTest(t, dir, x.clock)
	return x
}

func (x *extendSim) pick(s []string) string { return s[x.rng.IntN(len(s))] }

// payloads: int keys dropped, non-objects emptied, 1e999 unencodable
// (payload_error), escapes re-encoded.
var simPayloads = []string{
	`{"a":1}`, `[]`, `{}`, `null`, `"s"`, `[1,2,3]`, `{"0":"x","k":[1,{}]}`, `{"f":1e999}`,
	`{"s":"é\u2028/\"x\""}`, `{"n":1.0,"big":123456789012345678901234}`, `{ "sp" : [ true , null ] }`,
}

// event returns a random event's JSON; ts is sometimes missing or not an
// integer, so replay stamps it with its clock.
func (x *extendSim) event(ids []string) string {
	id := x.pick(ids)
	ts := fmt.Sprintf(`,"ts":%d`, x.clock.Now().Unix()-int64(x.rng.IntN(5)))
	if x.rng.IntN(4) == 0 {
		ts = x.pick([]string{``, `,"ts":5.0`, `,"ts":"5"`, `,"ts":null`})
	}
	switch x.rng.IntN(7) {
	case 0, 1:
		payload := ``
		if x.rng.IntN(8) != 0 {
			payload = `,"payload":` + x.pick(simPayloads)
		}
		return `{"op":"enqueue","id":"` + id + `"` + payload + ts + `}`
	case 2, 3:
		return `{"op":"claim","id":"` + id + `"` + ts + `}`
	case 4:
		return `{"op":"complete","id":"` + id + `","done":` + x.pick([]string{"true", "false", "1"}) + ts + `}`
	case 5:
		return `{"op":"requeue","id":"` + id + `"` + ts + `}`
	default:
		return `{"op":"purge","id":"` + id + `"` + ts + `}`
	}
}

func (x *extendSim) lines(n int, ids []string) string {
	var b strings.Builder
	for range n {
		b.WriteString(line(x.event(ids)))
	}
	return b.String()
}

func (x *extendSim) append(s string) {
	f, err := os.OpenFile(x.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		x.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		x.t.Fatal(err)
	}
}

func (x *extendSim) size() int64 {
	fi, err := os.Stat(x.path)
	if err != nil {
		x.t.Fatal(err)
	}
	return fi.Size()
}

// reopen gives the writer a handle on the current queue.log (its old one
// may be the replaced file, or stand mid-line in a rewritten one).
func (x *extendSim) reopen() {
	x.q.Close()
	x.q = openTest(x.t, x.dir, x.clock)
}

func (x *extendSim) api() {
	q, some := x.q, x.ids[:1+x.rng.IntN(len(x.ids))]
	var err error
	switch x.rng.IntN(6) {
	case 0:
		id := ""
		if x.rng.IntN(2) == 0 {
			id = x.pick(x.ids)
		}
		if id, err = q.Enqueue(obj("i", int64(x.rng.IntN(100)), "s", strings.Repeat("é", x.rng.IntN(3))), id); err == nil && len(x.ids) < 12 {
			x.ids = append(x.ids, id)
		}
	case 1:
		_, err = q.ClaimMany(1 + x.rng.IntN(3))
	case 2:
		_, err = q.CompleteMany(some, x.rng.IntN(3) != 0)
	case 3:
		_, err = q.RequeueMany(some)
	case 4:
		_, err = q.RequeueTimedOut(int64(x.rng.IntN(4)))
	default:
		_, err = q.PurgeDone(int64(x.rng.IntN(4)))
	}
	if err != nil {
		x.t.Fatal(err)
	}
}

// step applies a random change to queue.log and returns its kind.
func (x *extendSim) step() extendStep {
	total := 0
	for _, w := range stepWeights {
		total += w
	}
	w := x.rng.IntN(total)
	kind := extendStep(0)
	for ; w >= stepWeights[kind]; kind++ {
		w -= stepWeights[kind]
	}
	switch kind {
	case stepAPI:
		x.torn = "" // the writer cuts an invalid tail before it appends
		x.api()
	case stepLines:
		x.append(x.lines(1+x.rng.IntN(3), x.ids))
	case stepTorn:
		l := line(x.event(x.ids))
		cut := 1 + x.rng.IntN(len(l)-1)
		x.append(l[:cut])
		x.torn = l[cut:]
	case stepFinishTorn:
		x.append(x.torn)
		x.torn = ""
	case stepCorrupt:
		l := line(x.event(x.ids))
		switch x.rng.IntN(3) {
		case 0:
			l = "garbage\n"
		case 1:
			l = strings.Replace(l, `"op"`, `"oq"`, 1) // checksum mismatch
		default:
			l = line(`{"op":"heartbeat","id":"` + x.pick(x.ids) + `"}`)
		}
		x.append(l + x.lines(x.rng.IntN(2), x.ids))
	case stepTruncate:
		if err := os.Truncate(x.path, x.rng.Int64N(x.size()+1)); err != nil {
			x.t.Fatal(err)
		}
		x.torn = ""
	case stepRewrite, stepReplace:
		// Ids the log never held, so the rewritten bytes differ; or, for
		// a replacement, a copy that keeps every byte and grows.
		other := []string{"018bcfe5-6900-7000-9000-00000000001a", "018bcfe5-6901-7000-9000-00000000001b"}
		content := x.lines(1+x.rng.IntN(8), other)
		if kind == stepReplace && x.rng.IntN(2) == 0 {
			old, err := os.ReadFile(x.path)
			if err != nil {
				x.t.Fatal(err)
			}
			content = string(old) + x.lines(x.rng.IntN(3), x.ids)
		}
		if kind == stepRewrite {
			err := os.WriteFile(x.path, []byte(content), 0o666)
			if err != nil {
				x.t.Fatal(err)
			}
		} else {
			tmp := x.path + ".tmp"
			if err := os.WriteFile(tmp, []byte(content), 0o666); err != nil {
				x.t.Fatal(err)
			}
			if err := os.Rename(tmp, x.path); err != nil {
				x.t.Fatal(err)
			}
		}
		x.torn = ""
		x.reopen()
	}
	x.clock.set(x.clock.Now().Unix() + int64(x.rng.IntN(3)))
	return kind
}

// snapshotViews is everything a snapshot shows, for comparison.
type snapshotViews struct {
	size, validEnd int64
	lines          int
	invalid        string
	counts         Counts
	views          [numViews]string
}

// viewsOf reads every view with Each and checks ViewSize and ReadAt (at a
// few dozen offsets; viewText tries them all) against it.
func viewsOf(t *testing.T, s *Snapshot) snapshotViews {
	t.Helper()
	v := snapshotViews{size: s.Size, validEnd: s.ValidEnd, lines: s.Lines, counts: s.Counts()}
	if s.Invalid != nil {
		v.invalid = fmt.Sprintf("%d@%d: %v", s.Invalid.Line, s.Invalid.Offset, s.Invalid.Err)
	}
	for view := ViewPending; view < numViews; view++ {
		var b strings.Builder
		if err := s.Each(view, func(line []byte) error { b.Write(line); return nil }); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		if size, err := s.ViewSize(view); err != nil || size != int64(len(text)) {
			t.Fatalf("view %d: size %d (%v), content %d bytes", view, size, err, len(text))
		}
		rng := rand.New(rand.NewPCG(uint64(len(text)), uint64(view)))
		for probe := range 16 {
			off, buf := 0, make([]byte, len(text)+1)
			if probe > 0 {
				off, buf = rng.IntN(len(text)+1), make([]byte, 1+rng.IntN(512))
			}
			n, err := s.ReadAt(view, buf, int64(off))
			short := len(buf) > len(text)-off
			if n != min(len(buf), len(text)-off) || string(buf[:n]) != text[off:off+n] || short != (err == io.EOF) || !short && err != nil {
				t.Fatalf("view %d ReadAt(%d bytes at %d) = %d, %v", view, len(buf), off, n, err)
			}
		}
		v.views[view] = text
	}
	return v
}

// TestSnapshotAfterMatchesFullReplay: after every random change, a snapshot
// extended from the previous one shows exactly what a full replay shows, and
// extends whenever queue.log only grew (or lost an invalid tail).
func TestSnapshotAfterMatchesFullReplay(t *testing.T) {
	seeds, steps := 100, 40
	if testing.Short() {
		seeds = 20
	}
	var extended, full int
	for seed := range uint64(seeds) {
		x := newExtendSim(t, seed)
		clock := x.clock.Now
		prev, err := ReadSnapshot(x.dir, clock)
		if err != nil {
			t.Fatal(err)
		}
		prevViews := viewsOf(t, prev)
		for i := range steps {
			kind := x.step()
			shrunk := x.size() < prev.ValidEnd
			s, err := ReadSnapshotAfter(prev, x.dir, clock)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ReadSnapshot(x.dir, clock)
			if err != nil {
				t.Fatal(err)
			}
			got, wantViews := viewsOf(t, s), viewsOf(t, want)
			if got != wantViews {
				t.Fatalf("seed %d step %d (kind %d): extended snapshot\n%+v\nfull replay\n%+v", seed, i, kind, got, wantViews)
			}
			mayExtend := kind < stepTruncate || kind == stepTruncate && !shrunk
			if mayExtend && s.from != prev.ValidEnd || !mayExtend && s.from != 0 && prev.ValidEnd != 0 {
				t.Fatalf("seed %d step %d (kind %d): replay started at %d, previous valid end %d", seed, i, kind, s.from, prev.ValidEnd)
			}
			if s.from != 0 {
				extended++
			} else {
				full++
			}
			if mayExtend { // the valid prefix prev re-reads is intact
				if again := viewsOf(t, prev); again != prevViews {
					t.Fatalf("seed %d step %d: the extended snapshot changed its base\n%+v\nnow\n%+v", seed, i, prevViews, again)
				}
			}
			want.Close()
			prev.Close()
			prev, prevViews = s, got
		}
		prev.Close()
	}
	t.Logf("%d extended snapshots, %d full replays", extended, full)
	if extended < full {
		t.Fatalf("only %d of %d snapshots extended", extended, extended+full)
	}
}

// A snapshot extended from one with a torn last line re-reads that line once
// it is complete; one extended past a corrupt line stays stopped there.
func TestSnapshotAfterTornAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	clock := func() time.Time { return time.Unix(42, 0) }
	enq := line(`{"op":"enqueue","id":"018bcfe5-6800-7000-8000-00000000000a","payload":{"a":1},"ts":1}`)
	claim := line(`{"op":"claim","id":"018bcfe5-6800-7000-8000-00000000000a"}`)
	os.WriteFile(filepath.Join(dir, logName), []byte(enq+claim[:20]), 0o666)
	a, err := ReadSnapshot(dir, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Invalid == nil || a.Lines != 1 || a.ValidEnd != int64(len(enq)) {
		t.Fatalf("torn: %+v", a)
	}
	appendRaw(t, dir, claim[20:]+"garbage\n"+enq)
	b, err := ReadSnapshotAfter(a, dir, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.from != a.ValidEnd || b.Lines != 2 || b.Counts() != (Counts{0, 1, 0}) || b.Invalid == nil || b.Invalid.Line != 3 {
		t.Fatalf("completed: from %d, %d lines, %+v, %v", b.from, b.Lines, b.Counts(), b.Invalid)
	}
	if got := viewText(t, b, ViewProcessing); got != `{"id":"018bcfe5-6800-7000-8000-00000000000a","claimed_at":42,"payload":{"a":1}}`+"\n" {
		t.Errorf("processing %q", got)
	}
	appendRaw(t, dir, claim)
	c, err := ReadSnapshotAfter(b, dir, func() time.Time { return time.Unix(43, 0) })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.from != b.ValidEnd || c.Lines != 2 || c.Invalid == nil || c.Invalid.Line != 3 || c.Invalid.Offset != b.ValidEnd {
		t.Fatalf("past a corrupt line: from %d, %d lines, %v", c.from, c.Lines, c.Invalid)
	}
	// A clock-stamped claimed_at is the new replay's time, as a full
	// replay gives; the older snapshot keeps its own.
	if got := viewText(t, c, ViewProcessing); !strings.Contains(got, `"claimed_at":43`) {
		t.Errorf("processing after restamp %q", got)
	}
	if got := viewText(t, b, ViewProcessing); !strings.Contains(got, `"claimed_at":42`) {
		t.Errorf("older snapshot's processing %q", got)
	}
}

// An older snapshot's views stay exactly as they were while newer ones are
// extended from it (and from each other) and read, all concurrently; each
// extension shows what a full replay shows.
func TestSnapshotAfterKeepsOlderViews(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 1000}
	q := openTest(t, dir, clock)
	jobs := make([]Job, 600)
	for i := range jobs {
		jobs[i].Payload = obj("i", int64(i), "s", strings.Repeat("é", i%5))
	}
	ids, err := q.EnqueueMany(jobs)
	if err != nil {
		t.Fatal(err)
	}
	q.ClaimMany(300)
	q.CompleteMany(ids[:100], true)
	appendRaw(t, dir, line(`{"op":"claim","id":"`+ids[400]+`"}`)) // stamped with the replay clock

	type published struct {
		s     *Snapshot
		views snapshotViews
	}
	var (
		snaps []published
		wg    sync.WaitGroup
		stop  = make(chan struct{})
	)
	reader := func(p published) { // reads p's views until stop
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(p.s.Lines), 0))
			for {
				select {
				case <-stop:
					return
				default:
				}
				v := View(rng.IntN(int(numViews)))
				want := p.views.views[v]
				if len(want) == 0 {
					continue
				}
				off, buf := rng.IntN(len(want)), make([]byte, 1+rng.IntN(300))
				n, err := p.s.ReadAt(v, buf, int64(off))
				short := len(buf) > len(want)-off
				if n != min(len(buf), len(want)-off) || string(buf[:n]) != want[off:off+n] || short != (err == io.EOF) || !short && err != nil {
					t.Errorf("snapshot of %d lines, view %d at %d: %d bytes, %v", p.s.Lines, v, off, n, err)
					return
				}
			}
		}()
	}
	prev, err := ReadSnapshot(dir, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	first := published{prev, viewsOf(t, prev)}
	snaps = append(snaps, first)
	reader(first)
	for i := range 16 {
		clock.set(clock.Now().Unix() + 1)
		switch i % 4 {
		case 0:
			q.Enqueue(obj("n", int64(i)), "")
		case 1:
			q.ClaimMany(5)
		case 2:
			q.CompleteMany(ids[100+i*3:100+i*3+5], i%3 != 0)
		default:
			q.RequeueTimedOut(0)
		}
		s, err := ReadSnapshotAfter(prev, dir, clock.Now)
		if err != nil {
			t.Fatal(err)
		}
		if s.from == 0 {
			t.Fatal("not extended")
		}
		full, err := ReadSnapshot(dir, clock.Now)
		if err != nil {
			t.Fatal(err)
		}
		p := published{s, viewsOf(t, full)}
		if !slices.Equal(s.events.points, full.events.points) {
			t.Fatalf("events checkpoints %v, full replay's %v", s.events.points, full.events.points)
		}
		full.Close()
		reader(p) // builds s's indexes while the next snapshot copies s's state
		snaps = append(snaps, p)
		prev = s
	}
	// Extending the first snapshot again (as the others read it) gives
	// the latest state too.
	again, err := ReadSnapshotAfter(first.s, dir, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	if v := viewsOf(t, again); v != snaps[len(snaps)-1].views || again.from != first.s.ValidEnd {
		t.Errorf("a second extension of the first snapshot (from %d) differs from the full replay", again.from)
	}
	again.Close()
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	if first.views.views[ViewProcessing] == snaps[len(snaps)-1].views.views[ViewProcessing] {
		t.Error("the test changed nothing")
	}
	for _, p := range snaps {
		if again := viewsOf(t, p.s); again != p.views {
			t.Errorf("snapshot of %d lines changed", p.s.Lines)
		}
		p.s.Close()
	}
}
