package integration

// Live co-operation with the real PHP storh (../shared/oracle): PHP
// processes, writers and readers through the mount and storhfs commands
// work on one storage root at the same time for a bounded time, then the
// test judges what every side acknowledged and saw. The scenarios are in
// coop_doc_test.go, coop_log_test.go and coop_queue_test.go; the PHP
// clients in testdata/php.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/lockedbuf"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/internal/corpus"
)

// coopSecondsEnv sets how long each scenario's concurrent phase runs
// (default coopDefaultSeconds), for longer manual runs.
const (
	coopSecondsEnv     = "STORHFS_COOP_SECONDS"
	coopDefaultSeconds = 10
)

// phpOracle is the PHP storh beside the repository: STORH_AUTOLOAD (what a
// PHP client requires) and STORH_BIN (storh's CLI).
type phpOracle struct {
	autoload, bin string
}

// requireOracle finds php and ../shared/oracle (or $STORH_AUTOLOAD's
// directory); a missing one skips the test, naming it, and fails in CI.
func requireOracle(t *testing.T) phpOracle {
	t.Helper()
	o := corpus.RequireOracle(t)
	return phpOracle{autoload: o.Autoload, bin: o.Bin}
}

// env is the environment PHP clients run with.
func (o phpOracle) env() []string {
	return append(os.Environ(), "STORH_AUTOLOAD="+o.autoload, "STORH_BIN="+o.bin)
}

// script is the path of a PHP client in testdata/php.
func phpScript(name string) string {
	return filepath.Join(corpus.ModuleRoot(), "integration", "testdata", "php", name)
}

// runPHP runs a PHP script to completion (bounded) and fails on error.
func (o phpOracle) runPHP(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "php", args...)
	cmd.Env = o.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("php %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// verifyPHP runs storh's own `bin/storh verify ROOT COLL engine` and
// fails unless it reports "ok": true.
func (o phpOracle) verifyPHP(t *testing.T, root, coll, engine string) {
	t.Helper()
	out := o.runPHP(t, o.bin, "verify", root, coll, engine)
	var res struct {
		OK     bool  `json:"ok"`
		Errors []any `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.OK {
		t.Errorf("PHP storh verify %s %s: not ok (%v):\n%s", coll, engine, err, out)
	}
}

// verifyGo runs `storhfs verify --strict`, which exits 3 on "ok": false.
func verifyGo(t *testing.T, root, coll, engine string) {
	t.Helper()
	if out, err := run("", storhfsBin, "verify", "--strict", root, coll, engine); err != nil {
		t.Errorf("storhfs verify --strict %s %s: %v\n%s", coll, engine, err, out)
	}
}

// coopDuration is how long the concurrent phase of a scenario runs.
func coopDuration(t *testing.T) time.Duration {
	t.Helper()
	s := os.Getenv(coopSecondsEnv)
	if s == "" {
		return coopDefaultSeconds * time.Second
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number of seconds", coopSecondsEnv, s)
	}
	return time.Duration(n * float64(time.Second))
}

// monoNS is CLOCK_MONOTONIC in nanoseconds: the clock PHP's hrtime(true)
// reads, so the PHP logs' times and the test's compare.
func monoNS() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

// groupProc is a process started in a process group of its own; cleanup
// kills the whole group, so nothing it started outlives the test.
type groupProc struct {
	name string
	cmd  *exec.Cmd
	out  *lockedbuf.Buffer
	done chan error
}

// startGroup starts name args in a new process group with env (nil = the
// test's). It must exit by itself within limit; cleanup kills the group.
func startGroup(t *testing.T, limit time.Duration, env []string, name string, args ...string) *groupProc {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &groupProc{name: name + " " + strings.Join(args, " "), cmd: cmd, out: &lockedbuf.Buffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case err := <-p.done:
			p.done <- err
		case <-time.After(10 * time.Second):
		}
	})
	return p
}

// wait waits for the process (bounded by limit) and fails the test if it
// did not exit 0.
func (p *groupProc) wait(t *testing.T, limit time.Duration) {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		if err != nil {
			t.Errorf("%s: %v\n%s", p.name, err, p.out)
		}
	case <-time.After(limit):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		t.Errorf("%s still running %v after its end: killed", p.name, limit)
	}
}

// coopCmd runs one short tool invocation of a writer or reader: bounded,
// in its own process group (killed whole on timeout), stdin from stdin.
// It returns combined output, the error and the monotonic times taken
// just before the start and just after the exit.
func coopCmd(stdin []byte, name string, args ...string) (out string, err error, t0, t1 int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	t0 = monoNS()
	b, err := cmd.CombinedOutput()
	t1 = monoNS()
	return string(b), err, t0, t1
}

// problems collects what a scenario's concurrent parts found wrong, from
// any goroutine; report fails the test with the first few of each kind.
type problems struct {
	mu    sync.Mutex
	byKey map[string][]string
}

func (p *problems) add(kind, format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byKey == nil {
		p.byKey = map[string][]string{}
	}
	p.byKey[kind] = append(p.byKey[kind], fmt.Sprintf(format, args...))
}

func (p *problems) report(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for kind, list := range p.byKey {
		shown := list
		if len(shown) > 5 {
			shown = shown[:5]
		}
		t.Errorf("%s: %d times, e.g.\n  %s", kind, len(list), strings.Join(shown, "\n  "))
	}
}

// staleViewOpen reports an open of a log or queue view that failed with
// ESTALE ("Stale file handle"). This is a known defect of the mount, not
// of what it shows: under a steady stream of appends an open of
// records.ndjson or a queue view now and then fails with ESTALE (the
// kernel's one retry is refused too), reported with these tests. The
// scenarios count such opens and log them instead of failing on them;
// drop this exception once the defect is fixed.
func staleViewOpen(out string) bool {
	return strings.Contains(out, "Stale file handle")
}

// readNDJSON decodes every line of an acknowledgement log into T.
func readNDJSON[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var all []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v: %s", path, err, sc.Bytes())
		}
		all = append(all, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return all
}

// until runs fn in a loop on n goroutines until the deadline and waits.
func until(deadline time.Time, n int, fn func(worker, iteration int)) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				fn(w, i)
			}
		}()
	}
	return &wg
}
