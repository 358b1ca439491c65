package seglog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// segmentJob is one segment of a recovery replay and its outcome.
type segmentJob struct {
	path     string
	seg      int32
	interval int64
	res      segReplay
}

// replaySegments replays jobs in order into st, as recoverFrom does,
// stopping at the first error.
func replaySegments(jobs []*segmentJob, mode replayMode, st *stateIndex, buf []byte) error {
	for _, j := range jobs {
		r, err := replaySegment(j.path, j.seg, mode, st, j.interval, buf)
		j.res = r
		if err != nil {
			return err
		}
	}
	return nil
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

// A later segment's put overrides an earlier delete and the reverse, and
// a corrupt middle line hides the rest of its segment only.
func TestRecoveryReplayLastWriteWins(t *testing.T) {
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
	if err := replaySegments(jobs, replayRecover, st, nil); err != nil {
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

// A read error (a FIFO cannot be pread) stops the recovery replay with an
// error: the segment before it is recovered (its torn tail cut), the
// segments after it are left untouched (not truncated).
func TestRecoveryReplayStopsAtReadError(t *testing.T) {
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
		before := dirContents(t, dir)
		if len(before) != n-1 {
			t.Fatalf("%d regular segments, want %d", len(before), n-1)
		}
		if err := replaySegments(jobsFor(dir, n), replayRecover, newStateIndex(), nil); err == nil {
			t.Fatal("replay over a FIFO segment succeeded")
		}
		after := dirContents(t, dir)
		if got := string(after[firstSegment]); got != put {
			t.Fatalf("first segment after recovery: %q, want %q", got, put)
		}
		delete(before, firstSegment)
		for name, b := range before {
			if !bytes.Equal(after[name], b) {
				t.Fatalf("%s changed after the failed replay", name)
			}
		}
	}
}
