package seglog

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// randomSegments writes n segment files into dir and returns their paths.
// Ids come from a small pool, so puts, re-puts and deletes of one id span
// segments. Some segments get a corrupt middle line (bad checksum, bad
// length, no framing), foreign lines (not canonical, other ops, upper-case
// ids), a torn tail, a last line without "\n" or CRLF endings; some are
// empty or missing.
func randomSegments(t *testing.T, r *rand.Rand, dir string, n int) []string {
	t.Helper()
	paths := make([]string, n)
	for s := range paths {
		paths[s] = filepath.Join(dir, fmt.Sprintf("seg-%06d.ndjson", s+1))
		if r.IntN(12) == 0 {
			continue // listed but missing
		}
		var b []byte
		lines := r.IntN(60)
		for i := 0; i < lines; i++ {
			id := testID(r.IntN(40))
			var payload string
			switch r.IntN(10) {
			case 0, 1:
				payload = `{"op":"delete","id":"` + id + `"}`
			case 2:
				payload = `{"id":"` + strings.ToUpper(id) + `","op":"put","data":{"n":1}}`
			case 3:
				payload = `{"data":[1],"op":"archive","id":"` + id + `"}`
			case 4:
				payload = `{"op":"put","id":"` + id + `","data":{"n":` + fmt.Sprint(i) + `},"id":"` + testID(r.IntN(40)) + `"}`
			default:
				payload = `{"op":"put","id":"` + id + `","data":{"n":` + fmt.Sprint(i) + `}}`
			}
			line := AppendLine(nil, []byte(payload))
			switch r.IntN(40) {
			case 0:
				line[len(line)-3] ^= 1 // checksum mismatch
			case 1:
				line = []byte("not a framed line\n")
			case 2:
				line = append(line[:len(line)-1], "\r\n"...)
			}
			b = append(b, line...)
		}
		switch r.IntN(4) {
		case 0:
			b = append(b, "57\t0000"...) // torn tail
		case 1:
			if len(b) > 0 {
				b = b[:len(b)-1] // last line without "\n"
			}
		}
		if err := os.WriteFile(paths[s], b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

func jobsFor(dir string, n int) []*segmentJob {
	jobs := make([]*segmentJob, n)
	for i := range jobs {
		jobs[i] = &segmentJob{path: filepath.Join(dir, fmt.Sprintf("seg-%06d.ndjson", i+1)), seg: int32(i)}
		if i == n-1 {
			jobs[i].interval = 3
		}
	}
	return jobs
}

func dirContents(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue // never read a FIFO
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// The pipelined recovery replay gives exactly the sequential one's state
// index, per-segment outcomes and truncated files.
func TestPipelinedReplayMatchesSequential(t *testing.T) {
	for seed := uint64(0); seed < 60; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 1 + r.IntN(12)
		base, seqDir, pipeDir := t.TempDir(), t.TempDir(), t.TempDir()
		randomSegments(t, r, base, n)
		copyDir(t, base, seqDir)
		copyDir(t, base, pipeDir)

		seqJobs, pipeJobs := jobsFor(seqDir, n), jobsFor(pipeDir, n)
		seqState, pipeState := newStateIndex(), newStateIndex()
		if err := replaySegmentsSequential(seqJobs, replayRecover, seqState, nil); err != nil {
			t.Fatal(err)
		}
		if err := replaySegmentsPipelined(pipeJobs, replayRecover, pipeState, nil); err != nil {
			t.Fatal(err)
		}
		if !seqState.sameAs(pipeState) || seqState.live != pipeState.live || seqState.deleted != pipeState.deleted {
			t.Fatalf("seed %d: state differs: live %d/%d deleted %d/%d", seed, seqState.live, pipeState.live, seqState.deleted, pipeState.deleted)
		}
		for i := range seqJobs {
			if !reflect.DeepEqual(seqJobs[i].res, pipeJobs[i].res) {
				t.Fatalf("seed %d segment %d: pipelined %+v\nsequential %+v", seed, i, pipeJobs[i].res, seqJobs[i].res)
			}
		}
		if !reflect.DeepEqual(dirContents(t, seqDir), dirContents(t, pipeDir)) {
			t.Fatalf("seed %d: files differ after recovery", seed)
		}
	}
}

// A later segment's put overrides an earlier delete and the reverse, and
// a corrupt middle line hides the rest of its segment only.
func TestPipelinedReplayLastWriteWins(t *testing.T) {
	dir := t.TempDir()
	seg := func(i int, lines ...string) {
		var b []byte
		for _, l := range lines {
			b = append(b, l...)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seg-%06d.ndjson", i+1)), b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	put := func(n int) string {
		return string(AppendLine(nil, []byte(`{"op":"put","id":"`+testID(n)+`","data":{"n":1}}`)))
	}
	del := func(n int) string { return string(AppendLine(nil, []byte(`{"op":"delete","id":"`+testID(n)+`"}`))) }
	bad := string(AppendLine(nil, []byte(`{"op":"put","id":"`+testID(9)+`","data":{}}`)))
	bad = strings.Replace(bad, "\t", "\tx", 1)
	seg(0, put(1), put(2), put(3))
	seg(1, del(1), put(4))
	seg(2, put(1), del(2), bad, del(3), put(5))
	seg(3, del(4), put(6), "12\t000")
	seg(4)
	st := newStateIndex()
	jobs := jobsFor(dir, 5)
	if err := replaySegmentsPipelined(jobs, replayRecover, st, nil); err != nil {
		t.Fatal(err)
	}
	want := map[int]bool{1: true, 2: false, 3: true, 4: false, 6: true} // id -> live
	for n, live := range want {
		loc, ok := st.lookup([]byte(testID(n)))
		if !ok || loc.deleted == live {
			t.Fatalf("id %d: %+v %v, want live=%v", n, loc, ok, live)
		}
	}
	if _, ok := st.lookup([]byte(testID(5))); ok {
		t.Fatal("a line after the corrupt one was applied")
	}
	if st.live != 3 || st.deleted != 2 {
		t.Fatalf("live %d deleted %d, want 3 and 2", st.live, st.deleted)
	}
	if jobs[2].res.bad != ErrMalformedLine && jobs[2].res.bad != ErrCorruptLine {
		t.Fatalf("segment 2 bad = %v", jobs[2].res.bad)
	}
	if fi, _ := os.Stat(jobs[2].path); fi.Size() != jobs[2].res.badOff {
		t.Fatalf("segment 2 size %d, want truncated at %d", fi.Size(), jobs[2].res.badOff)
	}
}

// A read error (a FIFO cannot be pread) stops the pipelined replay with
// the sequential replay's error; segments after it are left untouched
// (not truncated) and the workers exit.
func TestPipelinedReplayStopsAtReadError(t *testing.T) {
	for _, n := range []int{2, 9} {
		dir := t.TempDir()
		put := string(AppendLine(nil, []byte(`{"op":"put","id":"`+testID(1)+`","data":{"n":1}}`)))
		for i := 0; i < n; i++ {
			path := filepath.Join(dir, fmt.Sprintf("seg-%06d.ndjson", i+1))
			if i == 1 {
				if err := syscall.Mkfifo(path, 0o666); err != nil {
					t.Skip("mkfifo:", err)
				}
				continue
			}
			if err := os.WriteFile(path, []byte(put+"9\ttorn"), 0o666); err != nil {
				t.Fatal(err)
			}
		}
		seqErr := replaySegmentsSequential(jobsFor(dir, n), replayRecover, newStateIndex(), nil)
		before := dirContents(t, dir)
		if len(before) != n-1 {
			t.Fatalf("%d regular segments, want %d", len(before), n-1)
		}
		pipeErr := replaySegmentsPipelined(jobsFor(dir, n), replayRecover, newStateIndex(), nil)
		if seqErr == nil || pipeErr == nil || seqErr.Error() != pipeErr.Error() {
			t.Fatalf("errors: sequential %v, pipelined %v", seqErr, pipeErr)
		}
		after := dirContents(t, dir)
		for name, b := range before {
			if !bytes.Equal(after[name], b) {
				t.Fatalf("%s changed after the failed replay", name)
			}
		}
	}
}

// Opening a partitioned log (pipelined recovery) builds the state index a
// sequential replay of the same files builds, through deletes and re-puts
// across segments, a corrupt middle line and a torn tail, and truncates
// the same files at the same offsets.
func TestOpenPartitionMatchesSequentialReplay(t *testing.T) {
	root := t.TempDir()
	ts := int64(1716384278000)
	opts := Options{MaxSegmentBytes: 512, Partition: PartitionDaily, PartitionTimestampMs: &ts}
	l, err := Open(root, "events", opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if _, err := l.Put(dataN(i), testID(i)); err != nil {
			t.Fatal(err)
		}
		if i%7 == 6 {
			if err := l.Delete(testID(i - 3)); err != nil {
				t.Fatal(err)
			}
		}
		if i%11 == 10 {
			if _, err := l.Put(dataN(-i), testID(i-8)); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir := l.Dir()
	l.Close()
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries := m.segments()
	if len(entries) < 10 {
		t.Fatalf("%d segments, want many", len(entries))
	}
	mid := dir + "/segments/" + entries[len(entries)/2].file
	b, _ := os.ReadFile(mid)
	b[len(b)/2] ^= 0x20 // inside some line: it fails its checksum or framing
	os.WriteFile(mid, b, 0o666)
	f, _ := os.OpenFile(dir+"/segments/"+m.activeFile(), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("120\t0000")
	f.Close()

	ref := t.TempDir()
	copyDir(t, dir+"/segments", ref)
	refJobs := make([]*segmentJob, len(entries))
	for i, e := range entries {
		refJobs[i] = &segmentJob{path: ref + "/" + e.file, seg: int32(i)}
	}
	want := newStateIndex()
	if err := replaySegmentsSequential(refJobs, replayRecover, want, nil); err != nil {
		t.Fatal(err)
	}

	l, err = Open(root, "events", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.state.live != want.live || l.state.deleted != want.deleted || l.state.entries() != want.entries() {
		t.Fatalf("live %d deleted %d entries %d, want %d %d %d", l.state.live, l.state.deleted, l.state.entries(), want.live, want.deleted, want.entries())
	}
	for i := 0; i < 200; i++ {
		got, gotOK := l.state.lookupString(testID(i))
		w, wOK := want.lookupString(testID(i))
		if gotOK != wOK || got.deleted != w.deleted || got.off != w.off || l.segs.names[got.seg] != entries[w.seg].file {
			t.Fatalf("id %d: %+v %v, want %+v %v", i, got, gotOK, w, wOK)
		}
	}
	if !reflect.DeepEqual(dirContents(t, dir+"/segments"), dirContents(t, ref)) {
		t.Fatal("segment files differ from the sequential recovery's")
	}
}
