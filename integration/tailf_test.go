package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/lockedbuf"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/core/seglog"
)

// releaseGraceInMount is fusefs's releaseGrace: how long a forgotten view
// node keeps its snapshot.
const releaseGraceInMount = time.Second

// followWithin bounds how long an append may take to show in tail's
// output (tail polls every 0.2 s here; the kernel's caches live 1 s).
const followWithin = 10 * time.Second

// recordsView is the core's records.ndjson of the log dir.
func recordsView(t *testing.T, dir string) []byte {
	t.Helper()
	snap, err := seglog.NewReader(dir).Snapshot()
	mustOK(t, err)
	defer snap.Close()
	return collect(t, snapshotRecords(snap), true)
}

// eventsView is the core's events.ndjson of the queue dir.
func eventsView(t *testing.T, dir string) []byte {
	t.Helper()
	snap, err := queue.ReadSnapshot(dir, nil)
	mustOK(t, err)
	defer snap.Close()
	var buf bytes.Buffer
	mustOK(t, snap.Each(queue.ViewEvents, func(line []byte) error { buf.Write(line); return nil }))
	return buf.Bytes()
}

// tailProcess is a running tail whose output the test reads.
type tailProcess struct {
	out  *lockedbuf.Buffer
	cmd  *exec.Cmd
	done chan struct{}
}

// startTail runs tail with args on path; cleanup kills it.
func startTail(t *testing.T, path string, args ...string) *tailProcess {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cmd := exec.CommandContext(ctx, "tail", append(args, path)...)
	p := &tailProcess{out: &lockedbuf.Buffer{}, cmd: cmd, done: make(chan struct{})}
	cmd.Stdout = p.out
	stderr := &lockedbuf.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
		cancel()
		if t.Failed() {
			t.Logf("tail %v stderr: %s", args, stderr)
		}
	})
	return p
}

// waitOutput waits (bounded) until tail has printed want, and fails if it
// printed anything else.
func (p *tailProcess) waitOutput(t *testing.T, what string, want []byte) {
	t.Helper()
	deadline := time.Now().Add(followWithin)
	for {
		got := []byte(p.out.String())
		if bytes.Equal(got, want) {
			return
		}
		if !bytes.HasPrefix(want, got) {
			t.Fatalf("%s: tail printed %q, want %q", what, got, want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: after %v tail printed %d of the %d bytes appended", what, followWithin, len(got), len(want))
		}
		select {
		case <-p.done:
			t.Fatalf("%s: tail exited", what)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestTailFollowsLogView: tail -f and tail -F of records.ndjson show the
// lines of records appended by another process, in a log of increasing
// ids (told from the replays) and in one with an earlier update (told by
// comparing the bytes).
func TestTailFollowsLogView(t *testing.T) { forEachMode(t, testTailFollowsLogView) }

func testTailFollowsLogView(t *testing.T, flags []string) {
	requireFuse(t, "tail")
	root := demoRoot(t, 3)
	opts := seglog.Options{MaxSegmentBytes: 4096}
	plain := openLog(t, root, "audit", opts)
	defer plain.Close()
	appendRows(t, plain, 0, 20)
	edited := openLog(t, root, "edited", opts)
	defer edited.Close()
	ids := appendRows(t, edited, 0, 20)
	_, err := edited.Put(jsonObject(t, `{"edited":true}`), ids[3])
	mustOK(t, err)
	m := startMount(t, root, flags...)

	for _, c := range []struct {
		name string
		log  *seglog.Log
		args []string
	}{
		{"audit", plain, []string{"-n", "0", "-f", "-s", "0.2"}},
		{"audit", plain, []string{"-n", "0", "--follow=name", "--retry", "-s", "0.2"}},
		{"edited", edited, []string{"-n", "0", "-f", "-s", "0.2"}},
	} {
		t.Run(fmt.Sprintf("%s %v", c.name, c.args), func(t *testing.T) {
			dir := filepath.Join(root, c.name)
			before := recordsView(t, dir)
			tail := startTail(t, m.path(c.name, "records.ndjson"), c.args...)
			time.Sleep(300 * time.Millisecond) // tail has opened the file and printed nothing
			for round := range 3 {
				appendRows(t, c.log, 100+10*round, 4) // rolls a segment now and then
				after := recordsView(t, dir)
				if !bytes.HasPrefix(after, before) {
					t.Fatal("the core's view did not grow by appends")
				}
				tail.waitOutput(t, fmt.Sprintf("round %d", round), after[len(before):])
			}
		})
	}
}

// TestTailFollowsQueueEvents: tail -f of a queue's events.ndjson shows the
// events of jobs enqueued and claimed by another process.
func TestTailFollowsQueueEvents(t *testing.T) { forEachMode(t, testTailFollowsQueueEvents) }

func testTailFollowsQueueEvents(t *testing.T, flags []string) {
	requireFuse(t, "tail")
	root := demoRoot(t, 3)
	q, err := queue.Open(root, "work", queue.Options{})
	mustOK(t, err)
	_, err = q.Enqueue(jsonObject(t, `{"first":1}`), "")
	mustOK(t, err)
	m := startMount(t, root, flags...)
	dir := queue.Dir(root, "work")
	before := eventsView(t, dir)
	tail := startTail(t, m.path("work", "events.ndjson"), "-n", "0", "-f", "-s", "0.2")
	time.Sleep(300 * time.Millisecond)
	for round := range 3 {
		_, err := q.Enqueue(jsonObject(t, fmt.Sprintf(`{"round":%d}`, round)), "")
		mustOK(t, err)
		_, err = q.Claim()
		mustOK(t, err)
		tail.waitOutput(t, fmt.Sprintf("round %d", round), eventsView(t, dir)[len(before):])
	}
}

// TestViewFstatAgreesWithRead: while another process appends to a log,
// updates and deletes its records and enqueues and claims jobs, a reader
// opens records.ndjson (and the queue's events and pending views) again
// and again, and on each descriptor fstat's size and the bytes read to
// EOF agree. A view may grow while it is read (appends reach open files):
// then fstat grows with it and the new bytes are readable; it never
// reports bytes that cannot be read nor lets read past its size.
func TestViewFstatAgreesWithRead(t *testing.T) { forEachMode(t, testViewFstatAgreesWithRead) }

func testViewFstatAgreesWithRead(t *testing.T, flags []string) {
	requireFuse(t)
	root := demoRoot(t, 3)
	l := openLog(t, root, "audit", seglog.Options{MaxSegmentBytes: 8192})
	defer l.Close()
	ids := appendRows(t, l, 0, 30)
	q, err := queue.Open(root, "work", queue.Options{})
	mustOK(t, err)
	m := startMount(t, root, append(flags, strings.Fields(os.Getenv("STORHFS_CHURN_MOUNT_FLAGS"))...)...)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		writeErr = churn(stop, l, q, ids)
	}()
	defer func() {
		if stop != nil {
			close(stop)
			wg.Wait()
		}
		mustOK(t, writeErr)
	}()

	views := []string{
		m.path("audit", "records.ndjson"), m.path("audit", "records.ndjson"),
		m.path("work", "events.ndjson"), m.path("work", "pending.ndjson"),
	}
	const opens = 160
	var mismatches []string
	growing := 0
	for i := range opens {
		msg, grew, err := fstatAgainstRead(views[i%len(views)])
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if msg != "" {
			mismatches = append(mismatches, fmt.Sprintf("%s: %s", filepath.Base(views[i%len(views)]), msg))
		}
		if grew {
			growing++
		}
	}
	if growing > 0 {
		t.Logf("%d of %d opens: the view grew in each of 100 rounds of read and fstat (each read reached the fstat before it)", growing, opens)
	}
	if growing == opens {
		t.Errorf("fstat and read never met in %d opens", opens)
	}
	if len(mismatches) > 0 {
		t.Errorf("fstat and read disagreed in %d of %d opens, e.g.:\n%v", len(mismatches), opens, mismatches[:min(5, len(mismatches))])
	}
	// Old nodes the kernel keeps cached give their snapshots back: at
	// most two snapshots (the latest and the open name's) hold segments.
	close(stop)
	wg.Wait()
	stop = nil
	segments, err := filepath.Glob(filepath.Join(root, "audit", "segments", "*"))
	mustOK(t, err)
	held := func() int {
		n := 0
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", m.cmd.Process.Pid))
		for _, fd := range fds {
			target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", m.cmd.Process.Pid, fd.Name()))
			if strings.HasPrefix(target, filepath.Join(root, "audit", "segments")+"/") {
				n++
			}
		}
		return n
	}
	if slices.Contains(flags, "--read-only") {
		// Known gap: without OPEN a node cannot count its open files and
		// keeps its snapshot until the kernel forgets it; some old nodes
		// stay known to the kernel (and their segment files open) longer
		// than this test waits. Reported, not yet enforced.
		time.Sleep(2 * releaseGraceInMount)
		t.Logf("read-only: %d segment descriptors held after the churn (read-write bound: %d)", held(), 2*len(segments))
		return
	}
	eventually(t, "the mount releases old snapshots of the log", func() bool { return held() <= 2*len(segments) })
}

// churn changes the log and the queue until stop: appends of new records,
// updates and deletes of existing ones, enqueues and claims.
func churn(stop chan struct{}, l *seglog.Log, q *queue.Queue, ids []string) error {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return nil
		case <-time.After(3 * time.Millisecond):
		}
		data := phpjson.NewArray(1)
		data.SetString("i", int64(i))
		var err error
		switch i % 4 {
		case 0, 1:
			_, err = l.Put(data, "")
		case 2:
			_, err = l.Put(data, ids[i%len(ids)])
		case 3:
			if i%8 == 3 {
				err = l.Delete(ids[(i/8)%len(ids)])
			} else {
				_, err = q.Claim()
			}
		}
		if err == nil {
			_, err = q.Enqueue(data, "")
		}
		if err != nil {
			return fmt.Errorf("churn step %d: %w", i, err)
		}
	}
}

// fstatAgainstRead opens path, fstats it and reads to EOF through the same
// descriptor until fstat and the bytes read agree. It returns what
// disagreed ("" if nothing did); growing when the view grew in each of
// 100 rounds (every round read what the fstat before it reported, so
// nothing disagreed, but they never met); err is a failure to open or read.
func fstatAgainstRead(path string) (mismatch string, growing bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	first := fi.Size()
	var content []byte
	for round := 0; round < 100; round++ {
		rest, err := io.ReadAll(f)
		if err != nil {
			return "", false, err
		}
		content = append(content, rest...)
		n := int64(len(content))
		if n < fi.Size() {
			return fmt.Sprintf("fstat says %d bytes, read ends at %d", fi.Size(), n), false, nil
		}
		if fi, err = f.Stat(); err != nil {
			return "", false, err
		}
		switch {
		case fi.Size() < n || first > n:
			return fmt.Sprintf("fstat said %d then %d bytes, read gave %d", first, fi.Size(), n), false, nil
		case fi.Size() == n:
			return checkLines(content), false, nil
		}
	}
	return checkLines(content), true, nil
}

// checkLines: a whole view is NDJSON, each line complete.
func checkLines(content []byte) string {
	if len(content) > 0 && content[len(content)-1] != '\n' {
		return "the view ends inside a line"
	}
	for line := range bytes.Lines(content) {
		if !json.Valid(line) {
			return fmt.Sprintf("not a JSON line: %q", line)
		}
	}
	return ""
}

// TestViewNewOpenSeesChange: with no watcher to drop the kernel's entry,
// an open right after a change that is not an append (a delete) goes
// through the node the kernel still caches, frozen at the old view; it is
// refused once with ESTALE, the kernel looks the name up again, and cat
// shows the new view. A file opened before the change keeps reading the
// old one, with fstat agreeing.
func TestViewNewOpenSeesChange(t *testing.T) { forEachMode(t, testViewNewOpenSeesChange) }

func testViewNewOpenSeesChange(t *testing.T, flags []string) {
	requireFuse(t, "cat")
	root := demoRoot(t, 3)
	l := openLog(t, root, "audit", seglog.Options{MaxSegmentBytes: 4096})
	defer l.Close()
	ids := appendRows(t, l, 0, 20)
	m := startMount(t, root, append(flags, "--no-watch")...)
	view, dir := m.path("audit", "records.ndjson"), filepath.Join(root, "audit")
	old := recordsView(t, dir)
	if got := readFile(t, view); !bytes.Equal(got, old) {
		t.Fatal("records.ndjson differs from the core's view")
	}
	f, err := os.Open(view)
	mustOK(t, err)
	defer f.Close()
	mustOK(t, l.Delete(ids[0]))
	if got, want := []byte(runOK(t, "", "cat", view)), recordsView(t, dir); !bytes.Equal(got, want) {
		t.Errorf("cat right after a delete: %d bytes, want the new view's %d (old: %d)", len(got), len(want), len(old))
	}
	got, err := io.ReadAll(f)
	mustOK(t, err)
	fi, err := f.Stat()
	mustOK(t, err)
	if !bytes.Equal(got, old) || fi.Size() != int64(len(old)) {
		t.Errorf("a file open across the delete read %d bytes, fstat %d; want the old view's %d", len(got), fi.Size(), len(old))
	}
}
