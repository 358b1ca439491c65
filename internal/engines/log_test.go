package engines

import (
	"errors"
	"io"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/seglog"
	"github.com/storhfs/storhfs/core/uuidv7"
	"github.com/storhfs/storhfs/fusefs"
)

// newTestLog makes the log ROOT/audit holding records {"n":1}...{"n":n}.
func newTestLog(t *testing.T, root string, n int) fusefs.LogStore {
	t.Helper()
	l, err := seglog.Open(root, "audit", seglog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		data := phpjson.NewArray(1)
		data.SetString("n", int64(i))
		if _, err := l.Put(data, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return Logs{}.Open(root + "/audit")
}

// The log adapter keeps seglog's meaning: the manifest first among the
// state files and segments by name, and a line seglog cannot decode is
// fusefs.ErrSkippedLine (the records view leaves it out and reads on)
// while still carrying seglog's *LineError.
func TestLogAdapter(t *testing.T) {
	root := t.TempDir()
	store := newTestLog(t, root, 1)
	files, err := store.StateFiles()
	if err != nil || len(files) != 2 || files[0].Segment != "" || !store.Layout().IsSegment(files[1].Segment) {
		t.Fatalf("StateFiles = %+v, %v; want the manifest, then one segment by name", files, err)
	}
	// StateFile stats one of them as StateFiles does, and nothing else: no
	// other name, nothing outside segments/, no symlink.
	for _, want := range files {
		got, err := store.StateFile(want.Segment)
		if err != nil || got.Segment != want.Segment || got.Info.Size() != want.Info.Size() ||
			!got.Info.ModTime().Equal(want.Info.ModTime()) || got.Info.Sys().(*syscall.Stat_t).Ino != want.Info.Sys().(*syscall.Stat_t).Ino {
			t.Errorf("StateFile(%q) = %+v, %v; want %+v", want.Segment, got, err, want)
		}
	}
	segDir := root + "/audit/" + store.Layout().Segments
	if err := os.Symlink(segDir+"/"+files[1].Segment, segDir+"/link.ndjson"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../manifest.jsonc", "../" + files[1].Segment, "x/" + files[1].Segment, ".hidden.ndjson", "seg.idx.jsonc", "missing.ndjson", "link.ndjson"} {
		if got, err := store.StateFile(name); err == nil {
			t.Errorf("StateFile(%q) = %+v, want an error", name, got)
		}
	}
	os.Remove(segDir + "/link.ndjson")

	// A framed line whose data does not decode, after the valid record.
	later := uuidv7.MaxForTimestampMs(time.Now().Add(time.Hour).UnixMilli())
	bad := seglog.AppendLine(nil, []byte(`{"op":"put","id":"`+later+`","data":{"a":}}`))
	f, err := os.OpenFile(root+"/audit/"+store.Layout().Segments+"/"+files[1].Segment, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(bad); err != nil {
		t.Fatal(err)
	}
	f.Close()

	snap, err := store.SnapshotAfter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if segs := snap.Segments(); len(segs) != 1 || segs[0].File != files[1].Segment {
		t.Errorf("Segments = %+v, want %s", segs, files[1].Segment)
	}
	src := snap.RecordLines()
	defer src.Close()
	var lines, skipped int
	for {
		_, err := src.Next()
		if err == io.EOF {
			break
		}
		var le *seglog.LineError
		switch {
		case errors.Is(err, fusefs.ErrSkippedLine) && errors.As(err, &le):
			skipped++
		case err != nil:
			t.Fatal(err)
		default:
			lines++
		}
	}
	if lines != 1 || skipped != 1 {
		t.Errorf("%d lines, %d skipped; want 1 and 1", lines, skipped)
	}
}

// The io_uring transport answers requests on goroutines locked to their
// thread, while timers and /dev/fuse requests run on others, and a view's
// pass over a segment lives across requests. So a pass started on a locked
// goroutine must go on and close on an unlocked one: a pass pulled from an
// iterator (iter.Pull, a coroutine) is then a fatal error of the process.
func TestSegmentLinesAcrossThreadLocking(t *testing.T) {
	store := newTestLog(t, t.TempDir(), 3)
	snap, err := store.SnapshotAfter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	src := snap.SegmentLines(snap.Segments()[0].File)
	first := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		_, err := src.Next()
		first <- err
	}()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	lines := 1
	for {
		_, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		lines++
	}
	if lines != 3 {
		t.Errorf("%d lines, want 3", lines)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
}

func logRecordsText(t *testing.T, s fusefs.LogSnapshot) string {
	t.Helper()
	src := s.RecordLines()
	defer src.Close()
	var b []byte
	for {
		line, err := src.Next()
		if err == io.EOF {
			return string(b)
		}
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, line...)
	}
}

// A log snapshot taken after an earlier one shows what a fresh one shows,
// the earlier one keeps its views, and a prev of another backend is
// ignored.
func TestLogSnapshotAfter(t *testing.T) {
	root := t.TempDir()
	store := newTestLog(t, root, 2)
	first, err := store.SnapshotAfter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	before := logRecordsText(t, first)
	l, err := seglog.Open(root, "audit", seglog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := phpjson.NewArray(1)
	data.SetString("n", int64(3))
	if _, err := l.Put(data, ""); err != nil {
		t.Fatal(err)
	}
	l.Close()
	for _, prev := range []fusefs.LogSnapshot{first, foreignLogSnapshot{}} {
		next, err := store.SnapshotAfter(prev)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := store.SnapshotAfter(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := logRecordsText(t, next), logRecordsText(t, fresh); got != want || !next.RecordsExtend(first) {
			t.Errorf("after %T: %q, fresh %q (extends: %v)", prev, got, want, next.RecordsExtend(first))
		}
		next.Close()
		fresh.Close()
	}
	if after := logRecordsText(t, first); after != before {
		t.Errorf("the earlier snapshot's records view became %q (was %q)", after, before)
	}
}

type foreignLogSnapshot struct{ fusefs.LogSnapshot }
