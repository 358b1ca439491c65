package queue

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func snapshotOf(t *testing.T, log string) *Snapshot {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "queue.log"), []byte(log), 0o666)
	s, err := ReadSnapshot(dir, func() time.Time { return time.Unix(42, 0) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func viewText(t *testing.T, s *Snapshot, v View) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.Each(v, func(line []byte) error { b.Write(line); return nil }); err != nil {
		t.Fatal(err)
	}
	size, err := s.ViewSize(v)
	if err != nil || size != int64(b.Len()) {
		t.Fatalf("view %d: size %d (%v), content %d bytes", v, size, err, b.Len())
	}
	// ReadAt at every offset and with odd buffer sizes agrees with Each.
	for _, n := range []int{1, 7, 4096} {
		step := max(n/2, 1)
		if b.Len() > 4096 {
			step = 997 // a prime: hits every position within a line over the view
		}
		for off := 0; off < b.Len(); off += step {
			p := make([]byte, n)
			got, err := s.ReadAt(v, p, int64(off))
			want := min(n, b.Len()-off)
			if got != want || !bytes.Equal(p[:got], b.Bytes()[off:off+got]) || (got < n && err != io.EOF) {
				t.Fatalf("view %d ReadAt(%d, %d) = %d, %v", v, n, off, got, err)
			}
		}
	}
	return b.String()
}

func TestSnapshotViews(t *testing.T) {
	log := workedExample +
		line(`{"op":"enqueue","id":"018bcfe5-6803-7000-8000-00000000000d","payload":{"0":"x","k":[1,{}]},"ts":1}`) +
		line(`{"op":"claim","id":"018bcfe5-6803-7000-8000-00000000000d"}`) +
		line(`{"op":"complete","id":"018bcfe5-6804-7000-8000-00000000000e","done":true,"ts":7}`) +
		"garbage\n" + line(`{"op":"purge","id":"018bcfe5-6804-7000-8000-00000000000e","ts":8}`)
	s := snapshotOf(t, log)
	if s.Invalid == nil || s.Invalid.Error() != "line 14: Malformed log queue line." || s.Lines != 13 || s.ValidEnd != int64(strings.Index(log, "garbage")) {
		t.Fatalf("snapshot %+v %v", s, s.Invalid)
	}
	if s.Counts() != (Counts{1, 1, 1}) {
		t.Fatalf("counts %+v", s.Counts())
	}
	if got := viewText(t, s, ViewPending); got != `{"id":"018bcfe5-6801-7000-8000-00000000000b","payload":[]}`+"\n" {
		t.Errorf("pending %q", got)
	}
	if got := viewText(t, s, ViewProcessing); got != `{"id":"018bcfe5-6803-7000-8000-00000000000d","claimed_at":42,"payload":{"k":[1,[]]}}`+"\n" {
		t.Errorf("processing %q", got)
	}
	if got := viewText(t, s, ViewDone); got != `{"id":"018bcfe5-6804-7000-8000-00000000000e","completed_at":7}`+"\n" {
		t.Errorf("done %q", got)
	}
	events := viewText(t, s, ViewEvents)
	if n := strings.Count(events, "\n"); n != 13 || strings.Contains(events, "\t") || !strings.HasPrefix(events, `{"op":"enqueue","id":"018bcfe5-6800`) {
		t.Errorf("events %q", events)
	}
	// The reader never truncates.
	if b, _ := os.ReadFile(s.f.Name()); string(b) != log {
		t.Fatal("snapshot changed the file")
	}
}

func TestSnapshotManyJobsCheckpoints(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: 5}
	q := openTest(t, dir, clock)
	jobs := make([]Job, 1000)
	for i := range jobs {
		jobs[i].Payload = obj("i", int64(i), "s", strings.Repeat("é", i%7))
	}
	if _, err := q.EnqueueMany(jobs); err != nil {
		t.Fatal(err)
	}
	q.ClaimMany(300)
	s, err := ReadSnapshot(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Counts() != (Counts{700, 300, 0}) || s.Invalid != nil {
		t.Fatalf("counts %+v", s.Counts())
	}
	for v := ViewPending; v < numViews; v++ {
		viewText(t, s, v)
	}
}

func TestReadSnapshotMissing(t *testing.T) {
	if _, err := ReadSnapshot(t.TempDir(), nil); err == nil {
		t.Fatal("missing queue.log read")
	}
}

// FuzzReplay feeds arbitrary queue.log contents to the Reader and to Queue's
// open: a clean stop or an error, never a panic; open keeps exactly the
// Reader's valid prefix.
func FuzzReplay(f *testing.F) {
	f.Add([]byte(workedExample))
	f.Add([]byte(workedExample[:500]))
	f.Add([]byte(workedExample + "garbage\n" + workedExample))
	f.Add([]byte("99999999999999999999\t00000000\t{}\n"))
	f.Fuzz(func(t *testing.T, log []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "queue.log")
		os.WriteFile(path, log, 0o666)
		s, err := ReadSnapshot(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		for v := ViewPending; v < numViews; v++ {
			if _, err := s.ViewSize(v); err != nil {
				t.Fatalf("view %d: %v", v, err)
			}
		}
		s.Close()
		q, err := OpenDir(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		b, _ := os.ReadFile(path)
		if int64(len(b)) != s.ValidEnd || !bytes.Equal(b, log[:s.ValidEnd]) {
			t.Fatalf("open kept %d bytes, reader's valid prefix is %d", len(b), s.ValidEnd)
		}
		if c, err := q.Counts(); err != nil || c != s.Counts() {
			t.Fatalf("counts %+v vs %+v (%v)", c, s.Counts(), err)
		}
	})
}

// EventsExtend: appends to queue.log (and a torn line completed later)
// extend the events view; a replaced queue.log does not.
func TestEventsExtend(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "queue.log")
	enq := line(`{"op":"enqueue","id":"018bcfe5-6800-7000-8000-00000000000a","payload":[],"ts":1}`)
	claim := line(`{"op":"claim","id":"018bcfe5-6800-7000-8000-00000000000a"}`)
	os.WriteFile(path, []byte(enq+claim[:10]), 0o666) // a torn second line
	read := func() *Snapshot {
		s, err := ReadSnapshot(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a := read()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(claim[10:])
	f.Close()
	b := read()
	if !b.EventsExtend(a) || !b.EventsExtend(b) || b.Lines != 2 {
		t.Errorf("an append does not extend the events view (%d lines)", b.Lines)
	}
	if ea, eb := viewText(t, a, ViewEvents), viewText(t, b, ViewEvents); !strings.HasPrefix(eb, ea) || ea == eb {
		t.Errorf("events %q then %q", ea, eb)
	}
	os.Remove(path)
	os.WriteFile(path, []byte(enq+claim+enq), 0o666)
	if read().EventsExtend(b) {
		t.Error("a replaced queue.log extends the old one")
	}
}
