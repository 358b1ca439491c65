package integration

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/core/seglog"
)

// logRoot writes, with the core, a storage root holding:
//
//	events   a log rolled many times, with deletes, a compaction, and
//	         appends, rolls and deletes after it
//	plog     a daily-partitioned log with two partitions
//	torn     a log whose active segment ends in a torn line
//	jobs     a queue with jobs pending, processing, done (kept) and completed
//	tornq    a queue whose queue.log ends in a torn line
func logRoot(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	small := seglog.Options{MaxSegmentBytes: 2048}

	events := openLog(t, root, "events", small)
	ids := appendRows(t, events, 0, 120)
	for _, id := range ids[10:30] {
		mustOK(t, events.Delete(id))
	}
	appendRows(t, events, 120, 20) // no ids given: generated
	mustOK(t, events.Compact())
	more := appendRows(t, events, 140, 60)
	mustOK(t, events.Delete(more[5]))
	mustOK(t, events.Delete(ids[50]))
	mustOK(t, events.Close())

	for _, ms := range []int64{1700000000000, 1700200000000} {
		opts := small
		opts.Partition, opts.PartitionTimestampMs = seglog.PartitionDaily, &ms
		p := openLog(t, root, "plog", opts)
		appendRows(t, p, int(ms%1000), 15)
		mustOK(t, p.Close())
	}

	torn := openLog(t, root, "torn", small)
	appendRows(t, torn, 0, 30)
	mustOK(t, torn.Close())
	appendBytes(t, activeSegment(t, filepath.Join(root, "torn")), `123 deadbeef {"op":"put","id":"01`)

	jobs, err := queue.Open(root, "jobs", queue.Options{})
	mustOK(t, err)
	var jobIDs []string
	for i := range 25 {
		id, err := jobs.Enqueue(jsonObject(t, fmt.Sprintf(`{"job":%d,"to":"user-%d@example.org","tags":["x","y"]}`, i, i)), "")
		mustOK(t, err)
		jobIDs = append(jobIDs, id)
	}
	claimed, err := jobs.ClaimMany(10)
	mustOK(t, err)
	mustOK(t, jobs.Complete(claimed[0].ID, true))
	mustOK(t, jobs.Complete(claimed[1].ID, true))
	mustOK(t, jobs.Complete(claimed[2].ID, false))
	mustOK(t, jobs.Close())

	tornq, err := queue.Open(root, "tornq", queue.Options{})
	mustOK(t, err)
	for i := range 5 {
		_, err := tornq.Enqueue(jsonObject(t, fmt.Sprintf(`{"n":%d}`, i)), "")
		mustOK(t, err)
	}
	mustOK(t, tornq.Close())
	appendBytes(t, filepath.Join(root, "tornq", "queue.log"), `{"op":"claim","id":"0`)
	return root
}

func TestLogAndQueueFiles(t *testing.T) { forEachMode(t, testLogAndQueueFiles) }

func testLogAndQueueFiles(t *testing.T, flags []string) {
	requireFuse(t, "cat", "jq", "wc", "tail", "stat", "ls")
	root := logRoot(t)
	before := treeDigest(t, root)
	m := startMount(t, root, flags...)

	// Every file the mount must show, with the content the core replays.
	want := map[string][]byte{}
	addLog := func(mountDir, dir string) {
		snap, err := seglog.NewReader(dir).Snapshot()
		mustOK(t, err)
		want[mountDir+"/records.ndjson"] = collect(t, snapshotRecords(snap), true)
		for _, seg := range snap.Segments() {
			if !seg.Missing {
				want[mountDir+"/segments/"+seg.File] = collect(t, snap.SegmentLines(seg.File).All(), false)
			}
		}
	}
	addLog("events", filepath.Join(root, "events"))
	addLog("plog/2023-11-14", filepath.Join(root, "plog/partitions/2023-11-14"))
	addLog("plog/2023-11-17", filepath.Join(root, "plog/partitions/2023-11-17"))
	addLog("torn", filepath.Join(root, "torn"))
	for _, q := range []string{"jobs", "tornq"} {
		snap, err := queue.ReadSnapshot(filepath.Join(root, q), nil)
		mustOK(t, err)
		for name, v := range map[string]queue.View{"pending": queue.ViewPending, "processing": queue.ViewProcessing, "done": queue.ViewDone, "events": queue.ViewEvents} {
			var buf bytes.Buffer
			mustOK(t, snap.Each(v, func(line []byte) error { buf.Write(line); return nil }))
			want[q+"/"+name+".ndjson"] = buf.Bytes()
		}
		snap.Close()
	}

	t.Run("the folders list exactly these files", func(t *testing.T) {
		var got []string
		mustOK(t, filepath.WalkDir(m.dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".ndjson") {
				got = append(got, strings.TrimPrefix(p, m.dir+"/"))
			}
			return err
		}))
		if len(got) != len(want) {
			t.Errorf("mount shows %d view files, want %d: %v", len(got), len(want), got)
		}
		for _, p := range got {
			if _, ok := want[p]; !ok {
				t.Errorf("unexpected file %s", p)
			}
		}
		if n := len(strings.Fields(runOK(t, "", "ls", m.path("events", "segments")))); n < 3 {
			t.Errorf("events has %d segments, want a rolled log", n)
		}
	})

	for p, content := range want {
		t.Run(p, func(t *testing.T) {
			file := m.path(p)
			if got := readFile(t, file); !bytes.Equal(got, content) {
				t.Fatalf("content differs from the core's replay (%d bytes, want %d)\ngot  %.300s\nwant %.300s", len(got), len(content), got, content)
			}
			if size := strings.TrimSpace(runOK(t, "", "stat", "-c", "%s", file)); size != fmt.Sprint(len(content)) {
				t.Errorf("stat size %s, want %d (bytes read)", size, len(content))
			}
			lines := bytes.Count(content, []byte("\n"))
			if wc := strings.Fields(runOK(t, "", "wc", "-l", file))[0]; wc != fmt.Sprint(lines) {
				t.Errorf("wc -l = %s, want %d", wc, lines)
			}
			if wc := strings.Fields(runOK(t, "", "wc", "-c", file))[0]; wc != fmt.Sprint(len(content)) {
				t.Errorf("wc -c = %s, want %d", wc, len(content))
			}
			if got := runOK(t, "", "tail", "-n", "5", file); got != lastLines(content, 5) {
				t.Errorf("tail -n 5 = %q, want %q", got, lastLines(content, 5))
			}
			if got := runOK(t, "", "jq", "-c", ".", file); got != string(content) {
				t.Errorf("jq -c . differs from the file: not canonical NDJSON\n%.300s", got)
			}
		})
	}

	t.Run("torn tails end the view at the last valid line", func(t *testing.T) {
		if n := bytes.Count(want["torn/records.ndjson"], []byte("\n")); n != 30 {
			t.Errorf("torn log shows %d records, want the 30 valid ones", n)
		}
		if n := bytes.Count(want["tornq/events.ndjson"], []byte("\n")); n != 5 {
			t.Errorf("torn queue shows %d events, want 5", n)
		}
	})

	t.Run("everything is read-only", func(t *testing.T) {
		for _, script := range []string{
			"echo x > events/records.ndjson",
			"echo x >> jobs/pending.ndjson",
			"touch events/new.ndjson",
			"touch events/segments/x.ndjson",
			"rm events/records.ndjson",
			"rm -f events/segments/$(ls events/segments | head -1)",
			"mv jobs/done.ndjson jobs/old.ndjson",
			"mv events/records.ndjson pages.ndjson",
			"mkdir events/sub",
			"rmdir events/segments",
			"ln -s x events/link",
			"truncate -s 0 events/records.ndjson",
			"chmod 666 events/records.ndjson",
			"rm -rf plog",
		} {
			out, err := run(m.dir, "sh", "-c", script)
			if err == nil {
				t.Errorf("%s succeeded", script)
			} else if !refusedReadOnly(out) && !strings.Contains(out, "ermission") && !strings.Contains(out, "not permitted") {
				t.Errorf("%s: %s (want EROFS or EACCES)", script, out)
			}
		}
	})

	t.Run("reading changed nothing on disk", func(t *testing.T) {
		if after := treeDigest(t, root); after != before {
			t.Errorf("the storage root changed while mounted read-only views were read:\n%s", diffLines(before, after))
		}
	})
}

func openLog(t *testing.T, root, name string, opts seglog.Options) *seglog.Log {
	t.Helper()
	l, err := seglog.Open(root, name, opts)
	mustOK(t, err)
	return l
}

// appendRows appends n rows numbered from first (AppendMany, so several
// lines per lock) and returns their ids.
func appendRows(t *testing.T, l *seglog.Log, first, n int) []string {
	t.Helper()
	rows := make([]phpjson.Value, n)
	for i := range rows {
		rows[i] = jsonObject(t, fmt.Sprintf(`{"n":%d,"who":"user-%d","msg":"event \"%d\" é/ü","nested":{"a":[1,2,{"b":null}],"ok":true}}`, first+i, (first+i)%7, first+i))
	}
	recs, err := l.AppendMany(rows)
	mustOK(t, err)
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	return ids
}

func jsonObject(t *testing.T, s string) *phpjson.Array {
	t.Helper()
	v, err := phpjson.Decode([]byte(s))
	mustOK(t, err)
	return v.(*phpjson.Array)
}

// collect concatenates a view's lines; skipLineErrors leaves out lines the
// core reports as undecodable (records view), other errors fail.
func collect(t *testing.T, seq func(func([]byte, error) bool), skipLineErrors bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	for line, err := range seq {
		var le *seglog.LineError
		if err != nil && skipLineErrors && errors.As(err, &le) {
			continue
		}
		mustOK(t, err)
		buf.Write(line)
	}
	return buf.Bytes()
}

// activeSegment is the newest seg-*.ndjson file of a log directory.
func activeSegment(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "segments", "seg-*.ndjson"))
	mustOK(t, err)
	if len(files) == 0 {
		t.Fatalf("no segment in %s", dir)
	}
	return files[len(files)-1]
}

func appendBytes(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	mustOK(t, err)
	_, err = f.WriteString(s)
	mustOK(t, err)
	mustOK(t, f.Close())
}

func lastLines(content []byte, n int) string {
	lines := strings.SplitAfter(string(content), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines[max(0, len(lines)-n):], "")
}

// treeDigest lists every file under root with its size and content hash.
func treeDigest(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	mustOK(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %x\n", strings.TrimPrefix(p, root), len(data), sha256.Sum256(data))
		return nil
	}))
	return b.String()
}

func diffLines(a, b string) string {
	in := map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		in[l] = true
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		if !in[l] {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// snapshotRecords iterates a snapshot's records view (RecordLines): a *LineError is
// yielded and iteration goes on; any other error ends it.
func snapshotRecords(s *seglog.Snapshot) iter.Seq2[[]byte, error] {
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
