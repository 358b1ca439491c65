package seglog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// snapHistory is a differential test's log: a writer, raw damage done to
// its files, and the snapshots taken so far.
type snapHistory struct {
	t      *testing.T
	rng    *rand.Rand
	root   string
	dir    string
	max    int64
	l      *Log
	nextID int
	torn   []byte // the rest of a line written in part, "" when none
	tornAt string // the segment the first part went to
	// removed is the content of the segment file removedAs, removed by a
	// step and restored by a later one.
	removed   []byte
	removedAs string
}

func (h *snapHistory) segPath(file string) string { return h.dir + "/segments/" + file }

// files lists the manifest's segments (none when it cannot be read).
func (h *snapHistory) files() []string {
	m, err := readManifest(h.dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range m.segments() {
		out = append(out, e.file)
	}
	return out
}

func (h *snapHistory) active() string {
	m, err := readManifest(h.dir)
	if err != nil {
		return ""
	}
	return m.activeFile()
}

func (h *snapHistory) appendRaw(file string, b []byte) {
	if file == "" {
		return
	}
	f, err := os.OpenFile(h.segPath(file), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		h.t.Fatal(err)
	}
}

func (h *snapHistory) rawPut(id int) []byte {
	return AppendLine(nil, fmt.Appendf(nil, `{"op":"put","id":"%s","data":{"n":%d}}`, testID(id), id))
}

// writer ops may fail on damage done behind the writer's back; a failed
// writer is reopened (which recovers, as PHP's open does).
func (h *snapHistory) writerDo(fn func(l *Log) error) {
	if err := fn(h.l); err != nil {
		h.l.Close()
		h.l = openTest(h.t, h.root, h.max)
	}
}

// step changes the log in one random way.
func (h *snapHistory) step() string {
	r := h.rng.IntN(100)
	switch {
	case r < 40:
		n := 1 + h.rng.IntN(4)
		h.writerDo(func(l *Log) error {
			for range n {
				h.nextID++
				if _, err := l.Put(dataN(h.nextID), testID(h.nextID)); err != nil {
					return err
				}
			}
			return nil
		})
		return fmt.Sprintf("put %d", n)
	case r < 46: // mostly a recent id, whose other put may be in a neighbouring segment
		id := max(1, h.nextID-h.rng.IntN(12))
		if h.rng.IntN(3) == 0 {
			id = 1 + h.rng.IntN(h.nextID+1)
		}
		h.writerDo(func(l *Log) error { _, err := l.Put(dataN(id*7), testID(id)); return err })
		return "overwrite"
	case r < 50:
		id := 1 + h.rng.IntN(h.nextID+1)
		h.writerDo(func(l *Log) error { return l.Delete(testID(id)) })
		return "delete"
	case r < 53:
		h.writerDo(func(l *Log) error { return l.Compact() })
		return "compact"
	case r < 60: // a line written in part; completed by a later step
		h.nextID++
		line := h.rawPut(h.nextID)
		cut := 1 + h.rng.IntN(len(line)-1)
		h.tornAt = h.active()
		h.appendRaw(h.tornAt, line[:cut])
		h.torn = line[cut:]
		return "torn"
	case r < 66:
		if h.torn == nil {
			return "noop"
		}
		h.appendRaw(h.tornAt, h.torn)
		h.torn = nil
		return "complete torn"
	case r < 69:
		line := h.rawPut(h.nextID + 1)
		line[len(line)-3] ^= 1 // checksum no longer matches
		h.appendRaw(h.active(), line)
		return "corrupt"
	case r < 73:
		h.nextID++
		line := h.rawPut(h.nextID)
		h.appendRaw(h.active(), line[:len(line)-1])
		return "unterminated"
	case r < 77: // a valid line in a segment others follow
		files := h.files()
		if len(files) < 2 {
			return "noop"
		}
		h.nextID++
		h.appendRaw(files[h.rng.IntN(len(files)-1)], h.rawPut(h.nextID))
		return "append sealed"
	case r < 83:
		files := h.files()
		if len(files) == 0 {
			return "noop"
		}
		file := files[len(files)-1]
		if h.rng.IntN(3) == 0 {
			file = files[h.rng.IntN(len(files))]
		}
		fi, err := os.Stat(h.segPath(file))
		if err != nil || fi.Size() == 0 {
			return "noop"
		}
		if err := os.Truncate(h.segPath(file), fi.Size()-1-h.rng.Int64N(min(fi.Size(), 200))); err != nil {
			h.t.Fatal(err)
		}
		return "truncate " + file
	case r < 86:
		files := h.files()
		if len(files) < 2 {
			return "noop"
		}
		file := files[h.rng.IntN(len(files)-1)]
		if b, err := os.ReadFile(h.segPath(file)); err == nil {
			h.removed, h.removedAs = b, file
		}
		os.Remove(h.segPath(file))
		return "remove sealed"
	case r < 88: // the removed segment is back (another inode)
		if h.removed == nil {
			return "noop"
		}
		if err := os.WriteFile(h.segPath(h.removedAs), h.removed, 0o666); err != nil {
			h.t.Fatal(err)
		}
		h.removed = nil
		return "restore " + h.removedAs
	case r < 91:
		h.replaceManifest()
		return "replace manifest"
	case r < 92: // truncated, then grown past the old end by the writer
		file := h.active()
		fi, err := os.Stat(h.segPath(file))
		if err != nil || fi.Size() < 2 {
			return "noop"
		}
		if err := os.Truncate(h.segPath(file), fi.Size()/2); err != nil {
			h.t.Fatal(err)
		}
		h.writerDo(func(l *Log) error {
			for range 6 {
				h.nextID++
				if _, err := l.Put(dataN(h.nextID), testID(h.nextID)); err != nil {
					return err
				}
			}
			return nil
		})
		return "truncate and regrow " + file
	case r < 93: // a byte before the end flipped in place (same inode)
		return h.rewrite(false)
	case r < 94: // a copy with its first byte changed takes the file's name
		return h.rewrite(true)
	case r < 96:
		h.l.Close()
		h.l = openTest(h.t, h.root, h.max)
		return "reopen"
	default:
		return "noop"
	}
}

// rewrite changes a segment's bytes as storh never does: a byte near its
// end in place, or (replace) its first byte in a copy renamed over it.
func (h *snapHistory) rewrite(replace bool) string {
	files := h.files()
	if len(files) == 0 {
		return "noop"
	}
	file := files[h.rng.IntN(len(files))]
	b, err := os.ReadFile(h.segPath(file))
	if err != nil || len(b) < 3 {
		return "noop"
	}
	if !replace {
		i := len(b) - 2 - h.rng.IntN(min(len(b)-2, 40))
		f, err := os.OpenFile(h.segPath(file), os.O_WRONLY, 0)
		if err != nil {
			h.t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte{b[i] ^ 1}, int64(i)); err != nil {
			h.t.Fatal(err)
		}
		return "flip a byte of " + file
	}
	b[0] ^= 1
	tmp := h.segPath(file) + ".test.tmp"
	if err := os.WriteFile(tmp, b, 0o666); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Rename(tmp, h.segPath(file)); err != nil {
		h.t.Fatal(err)
	}
	return "replace " + file
}

// replaceManifest rewrites the manifest (a new inode) without one of its
// sealed entries, with two of them swapped, or with one listed twice.
func (h *snapHistory) replaceManifest() {
	path := h.dir + "/" + manifestName
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var doc map[string]json.RawMessage
	var sealed []json.RawMessage
	if json.Unmarshal(b, &doc) != nil || json.Unmarshal(doc["sealed"], &sealed) != nil || len(sealed) == 0 {
		return
	}
	i := h.rng.IntN(len(sealed))
	switch h.rng.IntN(3) {
	case 0:
		j := (i + 1) % len(sealed)
		sealed[i], sealed[j] = sealed[j], sealed[i]
	case 1:
		sealed = slices.Delete(sealed, i, i+1)
	default: // listed twice
		sealed = append(sealed, sealed[i])
	}
	if doc["sealed"], err = json.Marshal(sealed); err != nil {
		h.t.Fatal(err)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		h.t.Fatal(err)
	}
	tmp := path + ".test.tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o666); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		h.t.Fatal(err)
	}
}

// snapshotDump is everything a snapshot shows, as text.
func snapshotDump(t *testing.T, s *Snapshot, ids []string) string {
	t.Helper()
	var b strings.Builder
	for _, seg := range s.Segments() {
		fmt.Fprintf(&b, "segment %+v err=%v\n", seg, seg.Err)
		b.WriteString(viewText(s.SegmentLines(seg.File).All()))
	}
	n, ok := s.KnownRecordsSize()
	fmt.Fprintf(&b, "known records size %d %v\n", n, ok)
	b.WriteString(viewText(records(s)))
	for _, id := range ids {
		rec, err := s.Get(id)
		fmt.Fprintf(&b, "get %s: %v", id, err)
		if rec != nil {
			line, _ := appendRecordLine(nil, *rec)
			b.Write(line)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "stats %+v\n", s.Stats())
	fmt.Fprintf(&b, "verify %+v\n", s.Verify())
	// What is not shown directly but decides what is.
	st := s.v.state
	fmt.Fprintf(&b, "state sequential=%v live=%d deleted=%d last=%s\n", st.sequential, st.live, st.deleted, st.lastID)
	fmt.Fprintf(&b, "records exact=%v size=%d trusted=%v\n", s.recordsExact, s.recordsSize, s.trusted)
	for _, e := range s.v.man.segments() {
		seg, _ := s.v.segs.lookup(e.file)
		fmt.Fprintf(&b, "limit %s %d\n", e.file, s.v.readLimit(seg))
		if stats := s.v.stats[seg]; stats != nil {
			fmt.Fprintf(&b, "stats %s %d %s %s %v %d\n", e.file, stats.records, stats.min(), stats.max(), stats.ordered, stats.end)
		}
	}
	return b.String()
}

// viewText is a view's lines, errors included.
func viewText(lines func(func([]byte, error) bool)) string {
	var b bytes.Buffer
	for line, err := range lines {
		if err != nil {
			fmt.Fprintf(&b, "error %v\n", err)
			continue
		}
		b.Write(line)
	}
	return b.String()
}

// sameIndex compares two snapshots' full indexes: sequential ones by
// their own, else the full views' entries.
func sameIndex(t *testing.T, a, b *Snapshot) bool {
	t.Helper()
	fa, errA := a.fullView()
	fb, errB := b.fullView()
	if errA != nil || errB != nil {
		return fmt.Sprint(errA) == fmt.Sprint(errB)
	}
	return fa.state.sameAs(fb.state) && fa.state.live == fb.state.live && fa.state.deleted == fb.state.deleted
}

// TestSnapshotAfterMatchesFull: a chain of snapshots each taken with
// SnapshotAfter of the one before shows, at every step of random writes,
// compactions, torn, corrupt and unterminated lines, truncations, removed
// segments and replaced manifests, exactly what a full replay shows.
func TestSnapshotAfterMatchesFull(t *testing.T) {
	seeds, steps := 24, 80
	if testing.Short() {
		seeds = 8
	}
	extended, total := 0, 0
	for seed := range seeds {
		root := t.TempDir()
		h := &snapHistory{t: t, rng: rand.New(rand.NewPCG(uint64(seed), 7)), root: root, dir: root + "/events", max: 256 + int64(seed%4)*200}
		h.l = openTest(t, root, h.max)
		r := NewReader(h.dir)
		var chain []*Snapshot // the incremental snapshots, newest last
		var ops []string
		for step := range steps {
			ops = append(ops, h.step())
			full, errFull := r.Snapshot()
			// Usually the last snapshot; sometimes an older one.
			var prev *Snapshot
			if len(chain) > 0 {
				prev = chain[len(chain)-1]
				if h.rng.IntN(5) == 0 {
					prev = chain[h.rng.IntN(len(chain))]
				}
			}
			var prevDump string
			if prev != nil {
				prevDump = snapshotDump(t, prev, nil)
			}
			if m, err := readManifest(h.dir); err == nil && prev != nil {
				if s, _, ok := extend(prev, m); ok {
					extended++
					s.Close()
				}
			}
			total++
			inc, errInc := r.SnapshotAfter(prev)
			if prev != nil && snapshotDump(t, prev, nil) != prevDump {
				t.Fatalf("seed %d step %d (%v): SnapshotAfter changed its prev", seed, step, ops)
			}
			if fmt.Sprint(errFull) != fmt.Sprint(errInc) {
				t.Fatalf("seed %d step %d (%v): full error %v, incremental %v", seed, step, ops, errFull, errInc)
			}
			if errFull != nil {
				continue
			}
			ids := []string{testID(1), testID(h.nextID), testID(1 + h.rng.IntN(h.nextID+1))}
			want, got := snapshotDump(t, full, ids), snapshotDump(t, inc, ids)
			if want != got {
				t.Fatalf("seed %d step %d after %v:\nfull:\n%s\nincremental:\n%s", seed, step, ops, want, got)
			}
			if !sameIndex(t, full, inc) {
				t.Fatalf("seed %d step %d after %v: full indexes differ", seed, step, ops)
			}
			if prev != nil {
				for _, seg := range full.Segments() {
					if full.SegmentExtends(prev, seg.File) != inc.SegmentExtends(prev, seg.File) {
						t.Fatalf("seed %d step %d: SegmentExtends(%s) differs", seed, step, seg.File)
					}
				}
				if full.RecordsExtend(prev) != inc.RecordsExtend(prev) {
					t.Fatalf("seed %d step %d: RecordsExtend differs", seed, step)
				}
			}
			full.Close()
			chain = append(chain, inc)
			if len(chain) > 4 {
				chain[0].Close()
				chain = chain[1:]
			}
		}
		for _, s := range chain {
			s.Close()
		}
		h.l.Close()
	}
	t.Logf("%d of %d snapshots extended their prev", extended, total)
	if extended < total/3 {
		t.Fatalf("only %d of %d snapshots extended their prev: the test no longer exercises SnapshotAfter", extended, total)
	}
}

// TestSnapshotAfterConcurrent: snapshots stay readable, and read the same,
// while newer ones are extended from them and closed.
func TestSnapshotAfterConcurrent(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 512)
	defer l.Close()
	r := NewReader(root + "/events")
	next := 0
	put := func(n int) {
		for range n {
			next++
			if _, err := l.Put(dataN(next), testID(next)); err != nil {
				t.Fatal(err)
			}
		}
	}
	put(50)
	prev, err := r.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for round := range 20 {
		put(7)
		want := recordsBytes(t, prev)
		wantSegs := map[string][]byte{}
		for _, seg := range prev.Segments() {
			wantSegs[seg.File] = segmentView(t, prev, seg.File)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for range 4 { // readers of prev
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 3 {
					var b bytes.Buffer
					for line, err := range records(prev) {
						if err != nil {
							errs <- err
							return
						}
						b.Write(line)
					}
					if !bytes.Equal(b.Bytes(), want) {
						errs <- fmt.Errorf("round %d: prev's records view changed", round)
						return
					}
					for file, w := range wantSegs {
						var sb bytes.Buffer
						for line, err := range prev.SegmentLines(file).All() {
							if err != nil {
								errs <- err
								return
							}
							sb.Write(line)
						}
						if !bytes.Equal(sb.Bytes(), w) {
							errs <- fmt.Errorf("round %d: prev's view of %s changed", round, file)
							return
						}
					}
					if _, err := prev.Get(testID(1)); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		for range 3 { // extensions of prev, closed at once
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := r.SnapshotAfter(prev)
				if err != nil {
					errs <- err
					return
				}
				if _, err := s.Get(testID(next)); err != nil {
					errs <- err
				}
				s.Close()
			}()
		}
		cur, err := r.SnapshotAfter(prev)
		if err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if got := recordsBytes(t, prev); !bytes.Equal(got, want) {
			t.Fatalf("round %d: prev's records view changed", round)
		}
		prev.Close()
		prev = cur
	}
	full, err := r.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	if !bytes.Equal(recordsBytes(t, full), recordsBytes(t, prev)) {
		t.Fatal("the chained snapshot differs from a full one")
	}
	prev.Close()
}

// TestSnapshotAfterRestoredSegment: a sealed segment that was missing and
// is back holds lines older than those of the segments after it, so they
// must not be applied after them: an id put again later stays there.
func TestSnapshotAfterRestoredSegment(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 256)
	defer l.Close()
	r := NewReader(root + "/events")
	for i := 1; i <= 8; i++ {
		if _, err := l.Put(dataN(i), testID(i)); err != nil {
			t.Fatal(err)
		}
	}
	first := r.segPathOf(t, 0)
	saved, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(first); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(dataN(100), testID(1)); err != nil { // put again: live in a later segment
		t.Fatal(err)
	}
	prev, err := r.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer prev.Close()
	if err := os.WriteFile(first, saved, 0o666); err != nil {
		t.Fatal(err)
	}
	full, err := r.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	inc, err := r.SnapshotAfter(prev)
	if err != nil {
		t.Fatal(err)
	}
	defer inc.Close()
	if want, got := snapshotDump(t, full, []string{testID(1)}), snapshotDump(t, inc, []string{testID(1)}); want != got {
		t.Fatalf("full:\n%s\nincremental:\n%s", want, got)
	}
}

// segPathOf is the path of the i-th segment the manifest lists.
func (r *Reader) segPathOf(t *testing.T, i int) string {
	t.Helper()
	m, err := readManifest(r.dir)
	if err != nil || len(m.segments()) <= i+1 {
		t.Fatalf("manifest: %v, %d segments", err, len(m.segments()))
	}
	return r.dir + "/" + segmentsDirName + "/" + m.segments()[i].file
}
