package seglog

import (
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
)

// writeSeg writes dir/segments/seg-000001.ndjson (no manifest: the log as
// PHP's open reads it).
func writeSeg(t *testing.T, content string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.MkdirAll(dir+"/segments", 0o777); err != nil {
		t.Fatal(err)
	}
	path = dir + "/segments/seg-000001.ndjson"
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// rewriteInPlace writes b at off of path, on the same inode, and may
// truncate the file first (PHP's recovery) at truncateAt >= 0.
func rewriteInPlace(t *testing.T, path string, off int64, b string, truncateAt int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if truncateAt >= 0 {
		if err := f.Truncate(truncateAt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.WriteAt([]byte(b), off); err != nil {
		t.Fatal(err)
	}
}

// drainRecords reads a RecordLines pass to its end: the lines emitted and
// the error that ended it (nil at io.EOF).
func drainRecords(s *Snapshot) ([]string, error) {
	r := s.RecordLines()
	defer r.Close()
	var out []string
	for {
		line, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			if _, skip := err.(*LineError); skip {
				out = append(out, "skipped: "+err.Error())
				continue
			}
			return out, err
		}
		out = append(out, string(line))
	}
}

func TestSnapshotBytesRewrittenInPlace(t *testing.T) {
	l1, l2 := framed(put(1, `{"a":1}`)), framed(put(2, `{"a":2}`))
	l3 := framed(put(3, `{"a":3}`))
	tail := strings.TrimSuffix(l3, "\n") // valid last line without "\n" (docs/format/segmentedlog.md §2.6)
	off3 := int64(len(l1) + len(l2))
	tests := []struct {
		name    string
		seg     string
		trusted bool
		rewrite func(t *testing.T, path string)
		good    int    // lines emitted before the error
		changed string // bytes that must never be emitted
	}{
		{
			name: "trusted segment, payload byte changed", seg: l1 + l2 + l3, trusted: true,
			rewrite: func(t *testing.T, path string) {
				rewriteInPlace(t, path, int64(len(l1)+strings.Index(l2, `{"a":2}`)+5), "7", -1)
			},
			good: 1, changed: `{"a":7}`,
		},
		{
			name: "unterminated tail replaced by a valid line of the same length", seg: l1 + l2 + tail,
			rewrite: func(t *testing.T, path string) {
				rewriteInPlace(t, path, off3, strings.TrimSuffix(framed(put(3, `{"a":9}`)), "\n"), -1)
			},
			good: 2, changed: `{"a":9}`,
		},
		{
			name: "unterminated tail truncated by recovery and appended over", seg: l1 + l2 + tail,
			rewrite: func(t *testing.T, path string) {
				rewriteInPlace(t, path, off3, framed(put(4, `{"b":44}`)), off3)
			},
			good: 2, changed: testID(4),
		},
		{
			name: "unterminated tail truncated and replaced by a shorter line", seg: l1 + l2 + tail,
			rewrite: func(t *testing.T, path string) {
				rewriteInPlace(t, path, off3, framed(put(5, `1`))+framed(put(6, `{"c":66666}`)), off3)
			},
			good: 2, changed: testID(5),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, path := writeSeg(t, tc.seg)
			s, err := NewReader(dir).SnapshotAsOpened()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, trusted := s.trusted[0]; trusted != tc.trusted {
				t.Fatalf("segment trusted = %v, want %v", trusted, tc.trusted)
			}
			before, err := drainRecords(s)
			if err != nil || len(before) != 3 {
				t.Fatalf("before the rewrite: %q, %v", before, err)
			}
			tc.rewrite(t, path)

			got, err := drainRecords(s)
			var changed *SegmentChangedError
			if !errors.As(err, &changed) || !errors.Is(err, syscall.EIO) {
				t.Fatalf("records after the rewrite: %q, err %v; want a *SegmentChangedError (EIO)", got, err)
			}
			if len(got) != tc.good || strings.Join(got, "") != strings.Join(before[:tc.good], "") {
				t.Errorf("emitted %q, want the first %d of %q", got, tc.good, before)
			}
			var payloads []string
			var segErr error
			for line, err := range s.SegmentLines("seg-000001.ndjson").All() {
				if err != nil {
					segErr = err
					break
				}
				payloads = append(payloads, string(line))
			}
			if !errors.As(segErr, &changed) {
				t.Errorf("segment view after the rewrite: err %v, want a *SegmentChangedError", segErr)
			}
			for _, out := range append(got, payloads...) {
				if strings.Contains(out, tc.changed) {
					t.Errorf("emitted changed bytes %q", out)
				}
			}
		})
	}
}

func TestSnapshotKeepsRemovedSegments(t *testing.T) {
	dir := buildLog(t)
	s, err := NewReader(dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantRecords, err := drainRecords(s)
	if err != nil {
		t.Fatal(err)
	}
	wantSize, err := recordsSize(s)
	if err != nil {
		t.Fatal(err)
	}
	sealed, active := segFiles(t, dir)
	files := append(sealed, active)
	wantSegs := map[string][]string{}
	for _, f := range files {
		for line, err := range s.SegmentLines(f).All() {
			if err != nil {
				t.Fatal(err)
			}
			wantSegs[f] = append(wantSegs[f], string(line))
		}
	}
	// A compaction and a PHP open remove every listed file; another file
	// takes the first name.
	for _, f := range files {
		if err := os.Remove(dir + "/segments/" + f); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(dir+"/segments/"+sealed[0], []byte(framed(put(99, `{"z":1}`))), 0o666); err != nil {
		t.Fatal(err)
	}

	got, err := drainRecords(s)
	if err != nil || strings.Join(got, "") != strings.Join(wantRecords, "") {
		t.Errorf("records after removal: %q, %v\nwant %q", got, err, wantRecords)
	}
	var n int64
	for _, line := range got {
		n += int64(len(line))
	}
	if n != wantSize {
		t.Errorf("records bytes %d, size %d", n, wantSize)
	}
	for _, f := range files {
		var lines []string
		for line, err := range s.SegmentLines(f).All() {
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			lines = append(lines, string(line))
		}
		if strings.Join(lines, "") != strings.Join(wantSegs[f], "") {
			t.Errorf("%s after removal: %q, want %q", f, lines, wantSegs[f])
		}
	}
	var streamed int
	if err := s.scanView().streamLocked(&StreamQuery{}, func(Record) error { streamed++; return nil }); err != nil || streamed != len(wantRecords) {
		t.Errorf("stream after removal: %d records, %v; want %d", streamed, err, len(wantRecords))
	}
	if rec, err := s.Get(testID(2)); err != nil || rec == nil {
		t.Errorf("get after removal: %v, %v", rec, err)
	}

	// After Close the files are released: reads fail instead.
	s.Close()
	if _, err := drainRecords(s); err == nil {
		t.Error("records after Close: no error")
	}
}
