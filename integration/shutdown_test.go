package integration

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/lockedbuf"
)

// A clean shutdown must never make close(2) lie: a writer whose close
// succeeded finds its record stored intact, and a close that failed stored
// nothing. Writers are `storhfs-testaid close-writer` processes
// (internal/testaid/closewriter.go).

// closeWriterContent mirrors internal/testaid/closewriter.go.
func closeWriterContent(writer, n int, id string) string {
	return fmt.Sprintf(`{"id":%q,"data":{"writer":%d,"n":%d,"pad":%q}}`, id, writer, n, strings.Repeat("x", 2000))
}

// closeWriter is one running close-writer process.
type closeWriter struct {
	n      int
	cmd    *exec.Cmd
	out    *lockedbuf.Buffer
	resume io.WriteCloser // its stdin: with --pause, a line resumes it
	done   chan error
}

func startCloseWriter(t *testing.T, n int, dir string, flags ...string) *closeWriter {
	t.Helper()
	args := append([]string{"close-writer", "--writer", strconv.Itoa(n)}, flags...)
	w := &closeWriter{n: n, cmd: exec.Command(testaidBin, append(args, dir)...), out: &lockedbuf.Buffer{}, done: make(chan error, 1)}
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	var err error
	if w.resume, err = w.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- w.cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case err := <-w.done:
			w.done <- err
		default:
			w.cmd.Process.Kill()
		}
	})
	return w
}

// closes counts the records whose close succeeded so far.
func (w *closeWriter) closes() int { return strings.Count(w.out.String(), " ok\n") }

func (w *closeWriter) wait(t *testing.T, bound time.Duration) {
	t.Helper()
	select {
	case err := <-w.done:
		w.done <- err
		if err != nil {
			t.Fatalf("close-writer %d: %v\n%s", w.n, err, w.out)
		}
	case <-time.After(bound):
		t.Fatalf("close-writer %d still running %v after the mount ended (blocked in the kernel?)", w.n, bound)
	}
}

// closeOutcome tallies one writer's answers.
type closeOutcome struct{ stored, refused, openRefused int }

// checkCloses compares every answer w printed with what root holds.
func checkCloses(t *testing.T, root string, w *closeWriter) closeOutcome {
	t.Helper()
	var o closeOutcome
	for _, line := range strings.Split(strings.TrimSpace(w.out.String()), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("close-writer %d printed %q", w.n, line)
		}
		id, status := f[0], f[2]
		n, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("close-writer %d printed %q", w.n, line)
		}
		stored, err := os.ReadFile(storedPath(root, "pages", id))
		switch status {
		case "ok":
			o.stored++
			if err != nil {
				t.Errorf("close of %s succeeded but the record is not stored: %v", id, err)
			} else if want := closeWriterContent(w.n, n, id); !bytes.Equal(stored, []byte(want)) {
				t.Errorf("close of %s succeeded but the stored record differs:\n got %q\nwant %q", id, stored, want)
			}
		case "close-failed":
			o.refused++
			if err == nil {
				t.Errorf("close of %s failed (%s) but the record was stored", id, strings.Join(f[3:], " "))
			}
		case "open-failed":
			o.openRefused++
			if err == nil {
				t.Errorf("open of %s failed but the record exists", id)
			}
		case "write-failed", "holding":
		default:
			t.Fatalf("close-writer %d printed %q", w.n, line)
		}
	}
	return o
}

// stormRounds is how many SIGTERM storms TestSIGTERMStormClosesNeverLie
// runs: 5 in CI, more with STORHFS_STORM_ROUNDS for a manual run.
func stormRounds(t *testing.T) int {
	v := os.Getenv("STORHFS_STORM_ROUNDS")
	if v == "" {
		return 5
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("STORHFS_STORM_ROUNDS=%q: want a positive number", v)
	}
	return n
}

func TestSIGTERMStormClosesNeverLie(t *testing.T) {
	requireFuse(t)
	const writers = 4
	var total closeOutcome
	for round := range stormRounds(t) {
		t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) {
			root := demoRoot(t, 3)
			m := startMount(t, root)
			abortOnCleanup(t, m)
			ws := make([]*closeWriter, writers)
			for i := range ws {
				ws[i] = startCloseWriter(t, i, m.path("pages"))
			}
			// Signal once every writer is well into its stream of records.
			deadline := time.Now().Add(30 * time.Second)
			for _, w := range ws {
				for w.closes() < 5 {
					if time.Now().After(deadline) {
						t.Fatalf("writer %d closed fewer than 5 records in 30 s: %s", w.n, w.out)
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if err := m.waitExit(15 * time.Second); err != nil {
				t.Fatalf("mount exit after SIGTERM: %v; stderr: %s", err, m.log)
			}
			for _, w := range ws {
				w.wait(t, 15*time.Second)
				o := checkCloses(t, root, w)
				total.stored += o.stored
				total.refused += o.refused
				total.openRefused += o.openRefused
			}
			verify(t, root, "pages")
		})
	}
	t.Logf("closes that succeeded: %d; closes that failed: %d; opens refused at shutdown: %d",
		total.stored, total.refused, total.openRefused)
}

// A file still open when the grace period ends: the mount exits 0 anyway,
// and the writer's close fails without storing anything.
func TestShutdownWithFileHeldOpen(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 3)
	m := startMount(t, root)
	abortOnCleanup(t, m)
	w := startCloseWriter(t, 0, m.path("pages"), "--max", "1", "--pause")
	eventually(t, "the writer holds its record open", func() bool {
		return strings.Contains(w.out.String(), " holding\n")
	})
	if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := m.waitExit(15 * time.Second); err != nil {
		t.Fatalf("mount exit after SIGTERM with a file open: %v; stderr: %s", err, m.log)
	}
	if isMounted(m.dir) {
		t.Errorf("%s still mounted", m.dir)
	}
	w.resume.Close() // finish the record now that the mount is gone
	w.wait(t, 20*time.Second)
	o := checkCloses(t, root, w)
	if o.refused != 1 {
		t.Errorf("the held-open record's close: %q, want a failure", w.out)
	}
	if !strings.Contains(m.log.String(), "still open") {
		t.Errorf("the mount did not say that files were still open; stderr: %s", m.log)
	}
}
