package seglog

import (
	"fmt"
	"io"
	"iter"
	"os"
	"reflect"
	"strings"
	"testing"
)

// framed frames each payload as a line ("\n"-terminated).
func framed(payloads ...string) string {
	var b []byte
	for _, p := range payloads {
		b = AppendLine(b, []byte(p))
	}
	return string(b)
}

func put(n int, data string) string {
	return fmt.Sprintf(`{"op":"put","id":"%s","data":%s}`, testID(n), data)
}

func del(n int) string { return fmt.Sprintf(`{"op":"delete","id":"%s"}`, testID(n)) }

// collectRecords renders an iteration as comparable text.
func collectRecords(seq func(func([]byte, error) bool)) []string {
	var out []string
	for line, err := range seq {
		if err != nil {
			out = append(out, "error: "+err.Error())
			continue
		}
		out = append(out, string(line))
	}
	return out
}

// snapshotsOf returns the snapshot of dir (sequential when it can be) and
// one replayed with a full index.
func snapshotsOf(t *testing.T, dir string) (*Snapshot, *Snapshot) {
	t.Helper()
	r := NewReader(dir)
	s, err := r.SnapshotAsOpened()
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := r.replay(s.v.man, newStateIndexFor(s.v.man))
	if err != nil {
		t.Fatal(err)
	}
	return s, full
}

func TestRecordLinesMatchStream(t *testing.T) {
	upper := strings.ToUpper(testID(5))
	tests := []struct {
		name       string
		seg        string // segments/seg-000001.ndjson, no manifest
		sequential bool
		sizeKnown  bool
	}{
		{"canonical append-only", framed(put(1, `{"a":1}`), put(2, `{"b":"x","c":[1,2.5]}`), put(3, `{"d":{"e":null}}`)), true, true},
		{"non-canonical data", framed(put(1, `{"a": 1}`), put(2, `{}`), put(3, `{"0":"drop","k":1}`), put(4, `[1]`), put(5, `{"f":1e2}`), put(6, `"s"`)), true, false},
		{"overwrite", framed(put(1, `{"a":1}`), put(2, `{"a":2}`), put(1, `{"a":3}`)), false, false},
		{"delete", framed(put(1, `{"a":1}`), put(2, `{"a":2}`), del(1), del(9)), false, false},
		{"delete then put again", framed(put(1, `{"a":1}`), del(1), put(1, `{"a":4}`)), false, false},
		{"decreasing ids", framed(put(2, `{"a":1}`), put(1, `{"a":2}`)), false, false},
		{"uppercase id first", framed(strings.Replace(put(5, `{"u":1}`), testID(5), upper, 1), put(1, `{"a":1}`)), true, true},
		{"uppercase id after", framed(put(1, `{"a":1}`), strings.Replace(put(5, `{"u":1}`), testID(5), upper, 1)), false, false},
		{"torn tail", framed(put(1, `{"a":1}`), put(2, `{"a":2}`)) + "40\tdeadbeef\t{\"op\":\"put\"", true, true},
		{"corrupt middle", framed(put(1, `{"a":1}`)) + "17\t00000000\t" + put(2, `{"a":2}`) + "\n" + framed(put(3, `{"a":3}`)), true, true},
		{"unterminated last line", strings.TrimSuffix(framed(put(1, `{"a":1}`), put(2, `{"a":2}`)), "\n"), true, true},
		{"crlf", strings.ReplaceAll(framed(put(1, `{"a":1}`), put(2, `{"a":2}`)), "\n", "\r\n"), true, false},
		{"other op", framed(put(1, `{"a":1}`), fmt.Sprintf(`{"op":"touch","id":"%s"}`, testID(2)), put(3, `{"a":3}`)), false, false},
		{"foreign envelope with two ids", framed(put(1, `{"a":1}`), fmt.Sprintf(`{"op":"put","id":"%s","data":{},"id":"%s"}`, testID(2), testID(1))), true, false},
		{"undecodable data", framed(put(1, `{"a":1}`), put(2, `{"a":}`), put(3, `{"a":3}`)), true, false},
		{"full envelope with extra keys", framed(fmt.Sprintf(`{"id":"%s","op":"put","x":1,"data":{"a":1}}`, testID(1)), put(2, `{"a":2}`)), true, false},
		{"invalid id", framed(put(1, `{"a":1}`), `{"op":"put","id":"zzzzzzzz-6800-7000-8000-000000000002","data":{"a":2}}`), true, false},
		{"empty", "", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(dir+"/segments", 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dir+"/segments/seg-000001.ndjson", []byte(tc.seg), 0o666); err != nil {
				t.Fatal(err)
			}
			s, full := snapshotsOf(t, dir)
			if s.v.state.sequential != tc.sequential {
				t.Errorf("sequential = %v, want %v", s.v.state.sequential, tc.sequential)
			}
			want := collectRecords(full.recordsByStream())
			for name, snap := range map[string]*Snapshot{"snapshot": s, "full": full} {
				if got := collectRecords(records(snap)); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: Records\n got %q\nwant %q", name, got, want)
				}
				if got := collectRecords(snap.recordsByStream()); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: stream\n got %q\nwant %q", name, got, want)
				}
			}
			if s.v.state.live != full.v.state.live || s.v.state.deleted != full.v.state.deleted {
				t.Errorf("live/deleted %d/%d, full index %d/%d", s.v.state.live, s.v.state.deleted, full.v.state.live, full.v.state.deleted)
			}
			if !reflect.DeepEqual(s.Segments(), full.Segments()) {
				t.Errorf("segments %+v, full index %+v", s.Segments(), full.Segments())
			}
			var size int64
			failed := false
			for _, l := range want {
				if strings.HasPrefix(l, "error: ") {
					failed = failed || !strings.Contains(l, ":0:") && !strings.Contains(l, ".ndjson:")
					continue
				}
				size += int64(len(l))
			}
			known, ok := s.KnownRecordsSize()
			if ok != tc.sizeKnown || (ok && known != size) {
				t.Errorf("KnownRecordsSize = %d, %v; want %d, %v", known, ok, size, tc.sizeKnown)
			}
			if got, err := recordsSize(s); !failed && (err != nil || got != size) {
				t.Errorf("RecordsSize = %d, %v; want %d", got, err, size)
			}
			for _, id := range []string{testID(1), testID(2), testID(3), upper, testID(9)} {
				a, errA := s.Get(id)
				b, errB := full.Get(id)
				if recordText(a, errA) != recordText(b, errB) {
					t.Errorf("Get(%s) = %v, %v; full index %v, %v", id, a, errA, b, errB)
				}
			}
			if a, b := s.Verify(), full.Verify(); !reflect.DeepEqual(a, b) {
				t.Errorf("Verify = %+v; full index %+v", a, b)
			}
		})
	}
}

// A multi-segment log written by Log: the sequential and full snapshots
// agree, and records equal the generic stream's.
func TestRecordLinesMultiSegment(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		root := t.TempDir()
		l := openTest(t, root, 300)
		for i := 1; i <= 20; i++ {
			if _, err := l.Put(dataN(i), testID(i)); err != nil {
				t.Fatal(err)
			}
		}
		if overwrite {
			if _, err := l.Put(dataN(40), testID(4)); err != nil {
				t.Fatal(err)
			}
		}
		l.Close()
		s, full := snapshotsOf(t, root+"/events")
		if len(s.Segments()) < 3 || s.v.state.sequential == overwrite {
			t.Fatalf("overwrite=%v: %d segments, sequential %v", overwrite, len(s.Segments()), s.v.state.sequential)
		}
		want := collectRecords(full.recordsByStream())
		if got := collectRecords(records(s)); !reflect.DeepEqual(got, want) || len(want) != 20 {
			t.Errorf("overwrite=%v: Records\n got %q\nwant %q", overwrite, got, want)
		}
		n, _ := recordsSize(s)
		var size int64
		for _, w := range want {
			size += int64(len(w))
		}
		if n != size {
			t.Errorf("overwrite=%v: RecordsSize %d, want %d", overwrite, n, size)
		}
	}
}

func recordText(r *Record, err error) string {
	if err != nil || r == nil {
		return fmt.Sprint(r, err)
	}
	line, err := appendRecordLine(nil, *r)
	return fmt.Sprint(string(line), err)
}

// A segment file replaced after the snapshot (another inode) is read with
// every check again: its lines are not copied on the replay's word.
func TestRecordLinesReplacedSegment(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/segments", 0o777); err != nil {
		t.Fatal(err)
	}
	path := dir + "/segments/seg-000001.ndjson"
	if err := os.WriteFile(path, []byte(framed(put(1, `{"a":10}`))), 0o666); err != nil {
		t.Fatal(err)
	}
	s, err := NewReader(dir).SnapshotAsOpened()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.KnownRecordsSize(); !ok {
		t.Fatal("canonical append-only log: size not known")
	}
	if err := os.WriteFile(path+".tmp", []byte(framed(put(1, `{"a": 1}`))), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	got, want := collectRecords(records(s)), collectRecords(s.recordsByStream())
	if !reflect.DeepEqual(got, want) || len(want) != 1 || strings.Contains(want[0], ": ") {
		t.Errorf("Records %q, stream %q", got, want)
	}
}

// recordsByStream is Records through the generic stream (the reference
// RecordLines is tested against).
func (s *Snapshot) recordsByStream() iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		var out []byte
		stopped := false
		q := StreamQuery{ContinueOnError: func(loc string, err error) {
			if stopped {
				return
			}
			file, off := splitLocation(loc)
			if !yield(nil, &LineError{File: file, Offset: off, Err: err}) {
				stopped = true
			}
		}}
		err := s.scanView().streamLocked(&q, func(r Record) error {
			if stopped {
				return errStopStream
			}
			var err error
			out, err = appendRecordLine(out[:0], r)
			if err != nil {
				if !yield(nil, &LineError{Err: fmt.Errorf("record %s: %w", r.ID, err)}) {
					return errStopStream
				}
				return nil
			}
			if !yield(out, nil) {
				return errStopStream
			}
			return nil
		})
		if err != nil && err != errStopStream && !stopped {
			yield(nil, err)
		}
	}
}

// splitLocation splits "<file>:<offset>".
func splitLocation(loc string) (string, int64) {
	i := strings.LastIndexByte(loc, ':')
	if i < 0 {
		return loc, 0
	}
	var off int64
	fmt.Sscan(loc[i+1:], &off)
	return loc[:i], off
}

// recordsSize is the records view's size: from the replay when it could
// count it, else one pass (as the mount does).
func recordsSize(s *Snapshot) (int64, error) {
	if n, ok := s.KnownRecordsSize(); ok {
		return n, nil
	}
	var n int64
	for line, err := range records(s) {
		if _, skip := err.(*LineError); skip {
			continue
		}
		if err != nil {
			return 0, err
		}
		n += int64(len(line))
	}
	return n, nil
}

// records iterates a snapshot's records view (RecordLines): a *LineError is
// yielded and iteration goes on; any other error ends it.
func records(s *Snapshot) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		r := s.RecordLines()
		defer r.Close()
		for {
			line, err := r.Next()
			if err == io.EOF || !yield(line, err) {
				return
			}
		}
	}
}
