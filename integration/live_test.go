package integration

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/seglog"
)

// TestLiveView changes ROOT from other processes while it is mounted and
// polls the mount from yet other processes until each change shows.
func TestLiveView(t *testing.T) { forEachMode(t, testLiveView) }

func testLiveView(t *testing.T, flags []string) {
	requireFuse(t, "ls", "cat", "stat", "wc")
	root := demoRoot(t, 30)
	small := seglog.Options{MaxSegmentBytes: 2048}
	l := openLog(t, root, "audit", small)
	appendRows(t, l, 0, 40)
	mustOK(t, l.Close())
	// The demo root has a queue "jobs" with jobs in every state; this test
	// counts lines from an empty queue of its own.
	const liveQueue = "livequeue"
	runOK(t, "", testaidBin, "queue-enqueue", root, liveQueue)
	// STORHFS_LIVE_MOUNT_FLAGS=--no-watch shows that this test fails
	// without the watcher.
	m := startMount(t, root, append(flags, strings.Fields(os.Getenv("STORHFS_LIVE_MOUNT_FLAGS"))...)...)
	latencies := map[string]time.Duration{}

	// observe runs change (a writer subprocess) and then polls visible
	// (reader subprocesses) until it holds, recording the latency.
	//
	// A poller keeps the kernel's caches warm while the writer runs, as an
	// application reading the mount would: without the watcher's
	// invalidation, a change to a watched collection's record would then
	// stay hidden for the long cache timeout, past the 5 s wait.
	observe := func(t *testing.T, what string, change func(), visible func() bool) {
		t.Helper()
		stop, polled := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(polled)
			for {
				select {
				case <-stop:
					return
				default:
				}
				visible()
				time.Sleep(20 * time.Millisecond)
			}
		}()
		change()
		close(stop)
		<-polled
		// The latency ends when the successful probe starts: its own
		// reader subprocess's start-up is the machine's load, not the
		// mount's.
		start := time.Now()
		for {
			probe := time.Now()
			if visible() {
				latencies[what] = probe.Sub(start)
				break
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("%s: not visible after 5s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	logSize := func() string {
		out, _ := run("", "stat", "-c", "%s", m.path("audit", "records.ndjson"))
		return strings.TrimSpace(out)
	}
	// coreLog is the core's records view of audit (nil on error: it also
	// runs in the poller goroutine, which must not stop the test).
	coreLog := func() []byte {
		snap, err := seglog.NewReader(filepath.Join(root, "audit")).Snapshot()
		if err != nil {
			return nil
		}
		var buf bytes.Buffer
		for line, err := range snapshotRecords(snap) {
			if err != nil {
				return nil
			}
			buf.Write(line)
		}
		return buf.Bytes()
	}
	lineCount := func(p string) int {
		out, err := run("", "wc", "-l", p)
		if err != nil {
			return -1
		}
		var n int
		fmt.Sscan(out, &n)
		return n
	}
	logSize() // the kernel now caches the size for 1 s

	t.Run("log appends", func(t *testing.T) {
		// Read first, so the kernel holds the old content's pages: the
		// read after the append must not be served from them.
		if got := readFile(t, m.path("audit", "records.ndjson")); !bytes.Equal(got, coreLog()) {
			t.Fatalf("records.ndjson differs from the core's replay before the append")
		}
		observe(t, "log append (stat size)", func() {
			sh(t, "", fmt.Sprintf(`printf '{"live":1}\n{"live":2}\n{"live":3}\n' | %s log-append %s audit`, testaidBin, root))
		}, func() bool { return logSize() == fmt.Sprint(len(coreLog())) })
		if got := readFile(t, m.path("audit", "records.ndjson")); !bytes.Equal(got, coreLog()) {
			t.Errorf("records.ndjson differs from the core's replay after the append")
		}
		if n := lineCount(m.path("audit", "records.ndjson")); n != 43 {
			t.Errorf("wc -l = %d, want 43", n)
		}
	})

	t.Run("log delete and compaction", func(t *testing.T) {
		first := string(bytes.SplitN(coreLog(), []byte(`"`), 5)[3])
		observe(t, "log delete (stat size)", func() {
			runOK(t, "", testaidBin, "log-delete", root, "audit", first)
		}, func() bool { return logSize() == fmt.Sprint(len(coreLog())) })
		segs := runOK(t, "", "ls", m.path("audit", "segments"))
		observe(t, "log compaction (segments listing)", func() {
			runOK(t, "", storhfsBin, "compact", root, "audit", "log")
		}, func() bool {
			out, _ := run("", "ls", m.path("audit", "segments"))
			return out != segs && strings.Contains(out, "compact-")
		})
		if got := readFile(t, m.path("audit", "records.ndjson")); !bytes.Equal(got, coreLog()) {
			t.Errorf("records.ndjson differs from the core's replay after the compaction")
		}
	})

	t.Run("an open file keeps its snapshot across a change that is not an append", func(t *testing.T) {
		f, err := os.Open(m.path("audit", "records.ndjson"))
		mustOK(t, err)
		defer f.Close()
		want := coreLog()
		head := make([]byte, 100)
		_, err = io.ReadFull(f, head)
		mustOK(t, err)
		first := string(bytes.SplitN(want, []byte(`"`), 5)[3])
		runOK(t, "", testaidBin, "log-delete", root, "audit", first)
		rest, err := io.ReadAll(f)
		mustOK(t, err)
		if got := append(head, rest...); !bytes.Equal(got, want) {
			t.Errorf("an open file's content changed under it (%d bytes, want %d)", len(got), len(want))
		}
	})

	t.Run("queue events", func(t *testing.T) {
		pending, processing := m.path(liveQueue, "pending.ndjson"), m.path(liveQueue, "processing.ndjson")
		if n := lineCount(pending); n != 0 {
			t.Fatalf("%s starts with %d pending lines, want an empty queue", liveQueue, n)
		}
		observe(t, "queue enqueue (wc -l pending)", func() {
			sh(t, "", fmt.Sprintf(`printf '{"a":1}\n{"a":2}\n{"a":3}\n' | %s queue-enqueue %s %s`, testaidBin, root, liveQueue))
		}, func() bool { return lineCount(pending) == 3 })
		observe(t, "queue claim (wc -l processing)", func() {
			runOK(t, "", testaidBin, "queue-claim", "-n", "2", root, liveQueue)
		}, func() bool { return lineCount(processing) == 2 && lineCount(pending) == 1 })
		if n := lineCount(m.path(liveQueue, "events.ndjson")); n != 5 {
			t.Errorf("events.ndjson has %d lines, want 5", n)
		}
	})

	t.Run("DocStore records", func(t *testing.T) {
		id := newID(t)
		name := m.path("pages", id+".jsonc")
		run("", "stat", name) // a negative entry the kernel caches
		observe(t, "record created (stat)", func() {
			sh(t, "", fmt.Sprintf(`echo '{"id":"%s","data":{"v":1}}' | %s put %s pages %s`, id, storhfsBin, root, id))
		}, func() bool { _, err := run("", "stat", name); return err == nil })
		runOK(t, "", "cat", name) // the kernel now caches its pages
		observe(t, "record replaced (cat)", func() {
			sh(t, "", fmt.Sprintf(`echo '{"id":"%s","data":{"v":22222}}' | %s put %s pages %s`, id, storhfsBin, root, id))
		}, func() bool { out, _ := run("", "cat", name); return strings.Contains(out, "22222") })
		observe(t, "record deleted (ls)", func() {
			runOK(t, "", storhfsBin, "delete", root, "pages", id)
		}, func() bool {
			out, err := run("", "ls", m.path("pages"))
			return err == nil && !slices.Contains(strings.Fields(out), id+".jsonc")
		})
	})

	t.Run("new collections", func(t *testing.T) {
		runOK(t, "", "ls", m.dir)
		observe(t, "new namespace with collections (ls)", func() {
			runOK(t, "", storhfsBin, "demo", "--records", "3", filepath.Join(root, "later"))
		}, func() bool {
			out, _ := run("", "ls", m.path("later", "pages"))
			return len(strings.Fields(out)) == 3
		})
		observe(t, "new log (ls)", func() {
			sh(t, "", fmt.Sprintf(`printf '{"x":1}\n' | %s log-append %s newlog`, testaidBin, root))
		}, func() bool { return lineCount(m.path("newlog", "records.ndjson")) == 1 })
	})

	var report []string
	for what, d := range latencies {
		// Logged, not bounded: no timing threshold in a test. Records of
		// a watched collection are cached for an hour (--cache-timeout),
		// so their changes show within the 5 s wait only through the
		// watcher's invalidation.
		report = append(report, fmt.Sprintf("%s: %v", what, d.Round(time.Millisecond)))
	}
	slices.Sort(report)
	t.Logf("visibility latency (writer exit to the mount showing it):\n  %s", strings.Join(report, "\n  "))
}

// TestLogViewPagesWithoutWatcher: with no watcher to drop the kernel's
// entry, a read right after an append goes through the node the kernel
// still caches for records.ndjson; it must show the append anyway (that
// node's cached pages hold the old content), and stat must agree once
// the entry has expired.
func TestLogViewPagesWithoutWatcher(t *testing.T) { forEachMode(t, testLogViewPagesWithoutWatcher) }

func testLogViewPagesWithoutWatcher(t *testing.T, flags []string) {
	requireFuse(t, "cat", "stat")
	root := demoRoot(t, 5)
	l := openLog(t, root, "audit", seglog.Options{MaxSegmentBytes: 2048})
	appendRows(t, l, 0, 20)
	m := startMount(t, root, append(flags, "--no-watch")...)
	view := m.path("audit", "records.ndjson")
	replay := func() []byte {
		snap, err := seglog.NewReader(filepath.Join(root, "audit")).Snapshot()
		mustOK(t, err)
		defer snap.Close()
		return collect(t, snapshotRecords(snap), true)
	}
	for range 2 { // the second read is served from the kernel's pages
		if got := readFile(t, view); !bytes.Equal(got, replay()) {
			t.Fatalf("records.ndjson differs from the core's replay")
		}
	}
	appendRows(t, l, 20, 5)
	if got, want := []byte(runOK(t, "", "cat", view)), replay(); !bytes.Equal(got, want) {
		t.Errorf("cat right after an append: %d bytes, want %d", len(got), len(want))
	}
	mustOK(t, l.Close())
	want := fmt.Sprint(len(replay()))
	eventually(t, "stat shows the new size", func() bool {
		out, _ := run("", "stat", "-c", "%s", view)
		return strings.TrimSpace(out) == want
	})
	if got := readFile(t, view); !bytes.Equal(got, replay()) {
		t.Errorf("records.ndjson after the entry expired differs from the core's replay")
	}
}
