package seglog

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

func testID(n int) string { return fmt.Sprintf("018bcfe5-6800-7000-8000-%012d", n) }

func dataN(n int) *phpjson.Array {
	a := phpjson.NewArray(2)
	a.SetString("n", int64(n))
	a.SetString("pad", strings.Repeat("p", 40))
	return a
}

func openTest(t testing.TB, root string, max int64) *Log {
	t.Helper()
	l, err := Open(root, "events", Options{MaxSegmentBytes: max, SparseIndexInterval: 2})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func streamIDs(t *testing.T, stream func(StreamQuery, func(Record) error) error, q StreamQuery) []string {
	t.Helper()
	var ids []string
	if err := stream(q, func(r Record) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	return ids
}

// snapshotStream streams a snapshot's view as Log.Stream does a log's.
func snapshotStream(s *Snapshot) func(StreamQuery, func(Record) error) error {
	return func(q StreamQuery, fn func(Record) error) error { return s.scanView().streamLocked(&q, fn) }
}

func TestReaderNeverModifies(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 300)
	for i := 1; i <= 8; i++ {
		if _, err := l.Put(dataN(i), testID(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Delete(testID(3)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(dataN(22), testID(2)); err != nil {
		t.Fatal(err)
	}
	want := streamIDs(t, l.Stream, StreamQuery{})
	l.Close()

	dir := root + "/events"
	m, _ := readManifest(dir)
	active := dir + "/segments/" + m.activeFile()
	torn := string(AppendLine(nil, []byte(`{"op":"put","id":"`+testID(99)+`","data":{}}`)))[:30]
	f, _ := os.OpenFile(active, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(torn)
	f.Close()
	before, _ := os.Stat(active)
	manBefore, _ := os.ReadFile(dir + "/" + manifestName)

	s, err := NewReader(dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if got := streamIDs(t, snapshotStream(s), StreamQuery{}); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("reader stream %v, want %v", got, want)
	}
	segs := s.Segments()
	last := segs[len(segs)-1]
	if last.Err == nil || last.ValidEnd != before.Size()-int64(len(torn)) || last.Size != before.Size() {
		t.Fatalf("torn tail not reported: %+v", last)
	}
	after, _ := os.Stat(active)
	manAfter, _ := os.ReadFile(dir + "/" + manifestName)
	if after.Size() != before.Size() || string(manAfter) != string(manBefore) {
		t.Fatal("reader modified the collection")
	}
	// Records and their size agree; segment payload sizes agree.
	var total int64
	n := 0
	for line, err := range records(s) {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(line), `{"id":"`) || !strings.HasSuffix(string(line), "}\n") {
			t.Fatalf("bad record line %q", line)
		}
		total += int64(len(line))
		n++
	}
	if size, err := recordsSize(s); err != nil || size != total || n != len(want) || s.v.state.live != n {
		t.Fatalf("RecordsSize %d (%v), lines %d bytes %d, live %d", size, err, n, total, s.v.state.live)
	}
	for _, seg := range segs {
		var sz int64
		for p, err := range s.SegmentLines(seg.File).All() {
			if err != nil {
				t.Fatal(err)
			}
			sz += int64(len(p))
		}
		if sz != seg.PayloadBytes {
			t.Fatalf("%s: payload %d, want %d", seg.File, sz, seg.PayloadBytes)
		}
	}
	if r, err := s.Get(testID(2)); err != nil || r == nil || r.Data.Len() != 2 {
		t.Fatalf("Get = %v, %v", r, err)
	}
	if r, err := s.Get(testID(3)); err != nil || r != nil {
		t.Fatalf("Get deleted = %v, %v", r, err)
	}
	var q StreamQuery
	q.After(testID(4))
	q.Limit(2)
	if got := streamIDs(t, snapshotStream(s), q); strings.Join(got, ",") != testID(5)+","+testID(6) {
		t.Fatalf("cursor stream %v", got)
	}

	// The PHP-compatible open truncates the torn tail.
	l = openTest(t, root, 300)
	defer l.Close()
	if fi, _ := os.Stat(active); fi.Size() != before.Size()-int64(len(torn)) {
		t.Fatalf("open did not truncate: %d", fi.Size())
	}
}

func TestAppendRepairsUnterminatedLine(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 1<<20)
	if _, err := l.Put(dataN(1), testID(1)); err != nil {
		t.Fatal(err)
	}
	active := l.segDir + "/" + l.man.activeFile()
	// Another writer crashed right before its "\n": the line is complete.
	line := AppendLine(nil, []byte(`{"op":"put","id":"`+testID(2)+`","data":[]}`))
	f, _ := os.OpenFile(active, os.O_WRONLY|os.O_APPEND, 0)
	f.Write(line[:len(line)-1])
	f.Close()
	if _, err := l.Put(dataN(3), testID(3)); err != nil {
		t.Fatal(err)
	}
	// Then a torn fragment: it is cut before the next append.
	f, _ = os.OpenFile(active, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("40\tdeadbeef\t{\"op\":")
	f.Close()
	if _, err := l.Put(dataN(4), testID(4)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l = openTest(t, root, 1<<20)
	defer l.Close()
	got := streamIDs(t, l.Stream, StreamQuery{})
	if strings.Join(got, ",") != strings.Join([]string{testID(1), testID(2), testID(3), testID(4)}, ",") {
		t.Fatalf("after reopen: %v", got)
	}
}

func TestHostileSegments(t *testing.T) {
	id := testID(1)
	good := string(AppendLine(nil, []byte(`{"op":"put","id":"`+id+`","data":{"a":1}}`)))
	for name, content := range map[string]string{
		"huge length":     good + "999999999999999\t00000000\t" + strings.Repeat("x", 200000),
		"no newline junk": good + strings.Repeat("y", 300000),
		"invalid utf8":    good + string(AppendLine(nil, []byte("{\"op\":\"put\",\"id\":\"\xff\xfe\",\"data\":{}}"))),
		"unknown op":      good + string(AppendLine(nil, []byte(`{"op":"touch","id":"`+testID(2)+`"}`))),
		"binary":          good + "\x00\x01\x02\t\t\t\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir() + "/events"
			os.MkdirAll(dir+"/segments", 0o777)
			os.WriteFile(dir+"/"+manifestName, []byte(`{"nextSegment":2,"sealed":[],"active":{"file":"seg-000001.ndjson","max":null,"min":null,"records":0,"ordered":true}}`+"\n"), 0o666)
			os.WriteFile(dir+"/segments/seg-000001.ndjson", []byte(content), 0o666)
			s, err := NewReader(dir).Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			seg := s.Segments()[0]
			if name == "unknown op" {
				if seg.Err != nil || seg.Lines != 2 {
					t.Fatalf("unknown op line is valid: %+v", seg)
				}
				return
			}
			if seg.Err == nil || seg.ValidEnd != int64(len(good)) || seg.Lines != 1 {
				t.Fatalf("%+v", seg)
			}
			if r, err := s.Get(id); err != nil || r == nil {
				t.Fatalf("Get: %v %v", r, err)
			}
		})
	}
}

func TestOptionErrors(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{MaxSegmentBytes: 255}, "Segment size must be at least 256 bytes."},
		{Options{SparseIndexInterval: -1}, "Sparse index interval must be at least 1."},
		{Options{Partition: "hourly"}, "Unsupported log partition: hourly"},
	} {
		_, err := Open(root, "bad", tc.opts)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v", tc.opts, err)
		}
	}
	if _, err := os.Stat(root + "/bad"); !errors.Is(err, os.ErrNotExist) {
		t.Error("rejected options created the collection")
	}
	ts := int64(1700000000000)
	if got := CollectionDir("/r/", "events", PartitionDaily, ts); got != "/r/events/partitions/2023-11-14" {
		t.Error(got)
	}
	if got := CollectionDir("/r", "events", PartitionMonthly, ts); got != "/r/events/partitions/2023-11" {
		t.Error(got)
	}
}

func TestRetainWithClock(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 1<<20)
	defer l.Close()
	for i := 1; i <= 3; i++ {
		l.Put(dataN(i), testID(i))
	}
	r := l.Retain()
	if _, err := r.Compact(); !errors.Is(err, ErrNoCutoff) {
		t.Fatal(err)
	}
	if err := r.OlderThanDays(0); !errors.Is(err, ErrRetentionDays) {
		t.Fatal(err)
	}
	r.OlderThanMs(1700000000000) // the test ids' timestamp
	if n, err := r.Compact(); err != nil || n != 3 {
		t.Fatalf("retain = %d, %v", n, err)
	}
	if st, _ := l.Stats(); st.Records != 0 || st.Deleted != 0 {
		t.Fatalf("%+v", st)
	}
}
