package integration

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/corpus"
	"github.com/storhfs/storhfs/internal/fusectl"
)

// exitBound is how long a mount process and its writers get to exit after
// a kill or SIGTERM before the test calls it a hang (and aborts the FUSE
// connection to recover). A healthy exit takes milliseconds.
const exitBound = 10 * time.Second

// killCollection is the collection the storms write.
const killCollection = "kills"

// storm is a storage root under write load: PHP writers beside it for the
// whole test, mount writers for each mount.
type storm struct {
	t        *testing.T
	root     string
	autoload string
	phpBin   string
	ledger   *ledger

	phpScript     string
	phpWriters    int
	phpGeneration int
	php           []*writer
}

// writer is a writer subprocess whose output the ledger follows.
type writer struct {
	cmd *exec.Cmd
	eof chan struct{} // closed once the ledger read all its output
}

func newStorm(t *testing.T, phpWriters int) *storm {
	t.Helper()
	requireFuse(t)
	oracle := corpus.RequireOracle(t)
	autoload, phpBin := oracle.Autoload, oracle.Bin
	s := &storm{t: t, root: filepath.Join(t.TempDir(), "root"), autoload: autoload, phpBin: phpBin, ledger: newLedger()}
	if err := os.Mkdir(s.root, 0o755); err != nil {
		t.Fatal(err)
	}
	setup := writePHPScript(t, "setup.php", phpSetupScript)
	if out, err := phpCommand(autoload, setup, s.root, killCollection).CombinedOutput(); err != nil {
		t.Fatalf("PHP setup: %v\n%s", err, out)
	}
	s.phpScript = writePHPScript(t, "writer.php", phpWriterScript)
	s.phpWriters = phpWriters
	s.startPHP()
	t.Cleanup(s.stopPHP)
	return s
}

// startPHP starts the PHP writers (named php<generation>-<n>).
func (s *storm) startPHP() {
	s.phpGeneration++
	for i := 0; i < s.phpWriters; i++ {
		name := fmt.Sprintf("php%d-%d", s.phpGeneration, i)
		s.php = append(s.php, s.start(phpCommand(s.autoload, s.phpScript, s.root, killCollection, name)))
	}
}

// start runs a writer whose TRY/ACK lines go to the ledger. Its output
// pipe is the test's own, so all of it is read even after Wait.
func (s *storm) start(cmd *exec.Cmd) *writer {
	s.t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		s.t.Fatal(err)
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		s.t.Fatal(err)
	}
	wr := &writer{cmd: cmd, eof: make(chan struct{})}
	go func() {
		defer close(wr.eof)
		defer r.Close()
		s.ledger.follow(r)
	}()
	return wr
}

func (s *storm) stopPHP() {
	for _, w := range s.php {
		w.cmd.Process.Kill()
	}
	waitWriters(s.php)
	s.php = nil
}

// mountWriters starts n writers through mount m.
func (s *storm) mountWriters(m *mount, round, n int) []*writer {
	var ws []*writer
	for i := 0; i < n; i++ {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|m%d-%d", killWriterEnv, m.path(killCollection), round, i))
		ws = append(ws, s.start(cmd))
	}
	return ws
}

// checkLedger fails the test for every acknowledged write missing and
// every torn record.
func (s *storm) checkLedger(when string) {
	s.t.Helper()
	for _, p := range s.ledger.check(s.root, killCollection) {
		s.t.Errorf("%s: %s", when, p)
	}
}

// killable is a mount the test will kill or stop. It knows its FUSE
// connection, so that recovery (and the test's cleanup) can abort it if the
// process does not exit: a hung mount never hangs the test run.
type killable struct {
	*mount
	minor uint32
}

func startKillable(t *testing.T, root string) *killable {
	t.Helper()
	m := startMount(t, root)
	minor, err := fusectl.MinorOf(m.dir)
	if err != nil {
		t.Fatal(err)
	}
	k := &killable{mount: m, minor: minor}
	// Registered after startMount's cleanup, so it runs first.
	t.Cleanup(func() {
		if !k.exited(0) {
			k.recover()
		}
	})
	return k
}

// exited waits up to d for the mount process to exit.
func (k *killable) exited(d time.Duration) bool {
	select {
	case err := <-k.done:
		k.done <- err
		return true
	case <-time.After(d):
		return false
	}
}

// recover aborts the connection of a process that did not exit (while it
// lives its connection cannot have been handed to another mount) and waits
// for the process to go.
func (k *killable) recover() {
	if err := fusectl.Abort(k.minor); err != nil && !errors.Is(err, os.ErrNotExist) {
		k.t.Errorf("abort FUSE connection %d: %v", k.minor, err)
	}
	if !k.exited(exitBound) {
		k.t.Errorf("mount process %d still there %v after its connection was aborted", k.cmd.Process.Pid, exitBound)
	}
}

// stuckThreads describes the process's threads that sit in the kernel's
// FUSE code (from /proc/PID/task/*/stack, readable as root).
func stuckThreads(pid int) string {
	var b strings.Builder
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	for _, task := range tasks {
		stat, _ := os.ReadFile(task + "/stat")
		stack, _ := os.ReadFile(task + "/stack")
		if strings.Contains(string(stack), "fuse") {
			fmt.Fprintf(&b, "thread %s (%s):\n%s", filepath.Base(task), procState(stat), stack)
		}
	}
	return b.String()
}

// procState is the state letter of a /proc/PID/stat line.
func procState(stat []byte) string {
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return "?"
}

// waitWriters waits (bounded) for writers to exit and their output to be
// read; it returns the ones that did not, with their states.
func waitWriters(ws []*writer) []string {
	deadline := time.Now().Add(exitBound)
	var stuck []string
	for _, w := range ws {
		select {
		case <-w.eof:
			w.cmd.Wait()
		case <-time.After(time.Until(deadline)):
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", w.cmd.Process.Pid))
			stuck = append(stuck, fmt.Sprintf("writer %d in state %s", w.cmd.Process.Pid, procState(stat)))
		}
	}
	return stuck
}

func envCount(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// TestKillStorm kills the mount with SIGKILL while writers are active (three
// writers through the mount creating, rewriting and renaming scratch files
// onto records; two PHP writers putting records into the same collection).
// After every kill the mount process and every writer must exit within
// exitBound, every acknowledged write must be stored whole, and the dead
// mount must be recoverable with `storhfs unmount --force`; the next round
// remounts. Halfway and at the end, with the writers stopped (verify takes
// no lock), a remount lists every record and PHP's and storhfs's verify
// find the collection healthy (after a reindex: index drift after a kill
// is issue 17 item 6).
// STORHFS_KILLS sets the number of kills (default 20).
func TestKillStorm(t *testing.T) {
	s := newStorm(t, 2)
	kills := envCount("STORHFS_KILLS", 20)
	rnd := rand.New(rand.NewSource(time.Now().UnixNano()))
	var hangs []string
	rescued := 0 // kills after which the watchdog had to abort the connection
	var slowest time.Duration
	for round := 0; round < kills; round++ {
		k := startKillable(t, s.root)
		writers := s.mountWriters(k.mount, round, 3)
		time.Sleep(time.Duration(100+rnd.Intn(400)) * time.Millisecond) // the storm's length, not a bound
		pid := k.cmd.Process.Pid
		start := time.Now()
		k.cmd.Process.Kill()
		if !k.exited(exitBound) {
			hangs = append(hangs, fmt.Sprintf("kill %d: mount process %d did not exit within %v:\n%s", round, pid, exitBound, stuckThreads(pid)))
			k.recover()
		}
		if stuck := waitWriters(writers); len(stuck) > 0 {
			hangs = append(hangs, fmt.Sprintf("kill %d: writers did not exit: %s", round, strings.Join(stuck, ", ")))
			k.recover()
			waitWriters(writers)
		}
		slowest = max(slowest, time.Since(start))
		if strings.Contains(k.log.String(), "storhfs watchdog: ") {
			rescued++
		}
		runOK(t, "", storhfsBin, "unmount", "--force", k.dir)
		s.checkLedger(fmt.Sprintf("after kill %d", round))
		if round == kills/2 {
			// Halfway: writers quiet, the collection must be healthy.
			s.stopPHP()
			s.healthy(t)
			s.startPHP()
		}
		if t.Failed() {
			break
		}
	}
	if len(hangs) > 0 {
		t.Errorf("%d of %d kills hung:\n%s", len(hangs), kills, strings.Join(hangs, "\n"))
	}
	s.stopPHP()
	s.checkLedger("at the end")
	t.Logf("%d kills, %d left a thread stuck and were recovered by the watchdog, slowest exit %v, %d writes acknowledged",
		kills, rescued, slowest.Round(time.Millisecond), s.ledger.acked)
	s.healthy(t)
}

// healthy remounts, checks every stored record is listed, and runs both
// verifies after a reindex.
func (s *storm) healthy(t *testing.T) {
	t.Helper()
	k := startKillable(t, s.root)
	listed := map[string]bool{}
	entries, err := os.ReadDir(k.path(killCollection))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		listed[strings.TrimSuffix(e.Name(), ".jsonc")] = true
	}
	for _, id := range storedIDs(t, s.root, killCollection) {
		if recordFileName.MatchString(id+".jsonc") && !listed[id] {
			t.Errorf("record %s is stored but not listed by the remount", id)
		}
	}
	if err := k.stop(); err != nil {
		t.Errorf("remount did not stop cleanly: %v", err)
	}
	runOK(t, "", storhfsBin, "reindex", s.root, killCollection)
	verify(t, s.root, killCollection)
	out, err := exec.Command("php", s.phpBin, "verify", s.root, killCollection, "doc").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"ok": true`) && !strings.Contains(string(out), `"ok":true`) {
		t.Errorf("PHP verify: %v\n%s", err, out)
	}
}

// TestTermStorm sends SIGTERM to the mount while writers are active: the
// process must exit within exitBound every time (close() honesty on
// SIGTERM is issue 17 item 3), and every acknowledged write must be stored.
// STORHFS_TERMS sets the number of runs (default 8).
func TestTermStorm(t *testing.T) {
	s := newStorm(t, 1)
	runs := envCount("STORHFS_TERMS", 8)
	rnd := rand.New(rand.NewSource(time.Now().UnixNano()))
	var hangs []string
	var slowest time.Duration
	for round := 0; round < runs; round++ {
		k := startKillable(t, s.root)
		writers := s.mountWriters(k.mount, round, 3)
		time.Sleep(time.Duration(100+rnd.Intn(300)) * time.Millisecond)
		pid := k.cmd.Process.Pid
		start := time.Now()
		k.cmd.Process.Signal(syscall.SIGTERM)
		if !k.exited(exitBound) {
			hangs = append(hangs, fmt.Sprintf("SIGTERM %d: mount process %d did not exit within %v:\n%s", round, pid, exitBound, stuckThreads(pid)))
			k.recover()
		}
		slowest = max(slowest, time.Since(start))
		if strings.Contains(k.log.String(), "storhfs watchdog: ") {
			t.Errorf("SIGTERM %d: the process exited only after the watchdog aborted its connection:\n%s", round, k.log)
		}
		if stuck := waitWriters(writers); len(stuck) > 0 {
			hangs = append(hangs, fmt.Sprintf("SIGTERM %d: writers did not exit: %s", round, strings.Join(stuck, ", ")))
			k.recover()
			waitWriters(writers)
		}
		if isMounted(k.dir) {
			t.Errorf("SIGTERM %d: %s still mounted after the process exited", round, k.dir)
			runOK(t, "", storhfsBin, "unmount", "--force", k.dir)
		}
		s.checkLedger(fmt.Sprintf("after SIGTERM %d", round))
		if t.Failed() {
			break
		}
	}
	if len(hangs) > 0 {
		t.Errorf("%d of %d SIGTERMs hung:\n%s", len(hangs), runs, strings.Join(hangs, "\n"))
	}
	t.Logf("%d SIGTERMs, slowest exit %v, %d writes acknowledged", runs, slowest.Round(time.Millisecond), s.ledger.acked)
}
