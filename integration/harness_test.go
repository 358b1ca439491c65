// Package integration mounts real storage roots with the storhfs binary and
// drives unmodified tools (ls, cat, grep, jq, sed, vim, rsync, cp, find,
// stat, wc, cmp) against them as subprocesses. The test process never
// serves the mount itself: the binary does, in its own process.
package integration

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/lockedbuf"

	"github.com/storhfs/storhfs/core/uuidv7"
	"github.com/storhfs/storhfs/internal/corpus"
)

// storhfsBin is the binary under test, built once by TestMain.
var storhfsBin string

// testaidBin writes logs, queues and mounted records as an application
// would (internal/testaid), built once by TestMain next to storhfsBin.
var testaidBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "storhfs-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	storhfsBin = filepath.Join(dir, "storhfs")
	// Built with the race detector: the mount serves the tools' requests
	// concurrently, and a race report fails the test (see forceUnmount).
	build := exec.Command("go", "build", "-race", "-o", storhfsBin, "github.com/storhfs/storhfs/cmd/storhfs")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build storhfs:", err)
		os.Exit(1)
	}
	testaidBin = filepath.Join(dir, "storhfs-testaid")
	build = exec.Command("go", "build", "-o", testaidBin, "github.com/storhfs/storhfs/internal/testaid")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build storhfs-testaid:", err)
		os.Exit(1)
	}
	// A race-enabled binary sleeps 1 s at exit by default; the writer
	// subprocesses' changes would then be older than the kernel's 1 s
	// caches by the time they return, hiding how fast the mount shows them.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	restore, err := useIOUring()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	restore()
	os.RemoveAll(dir)
	os.Exit(code)
}

// requireFuse skips when the kernel bridge is missing (fails in CI, which
// has it); the tools the tests drive are required (CI installs them), so a
// missing one fails.
func requireFuse(t *testing.T, tools ...string) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		corpus.Missing(t, fmt.Sprintf("no /dev/fuse on this machine (%v): cannot mount", err))
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("tool %s is required by this test but not installed (apt-get install it; .ci/run does)", tool)
		}
	}
}

// demoRoot writes a generated storage root: pages (n records, indexes slug
// unique, kind, score range), notes (n/3), app/users (n/2, email unique).
func demoRoot(t *testing.T, n int) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	runOK(t, "", storhfsBin, "demo", "--records", fmt.Sprint(n), root)
	return root
}

// mount is one running `storhfs mount` process.
type mount struct {
	t    *testing.T
	dir  string
	cmd  *exec.Cmd
	done chan error
	log  *lockedbuf.Buffer
	// ready is the mount's ready line.
	ready string
}

// startMount mounts root at a fresh directory and waits for the ready line.
// Cleanup unmounts even when the test failed.
func startMount(t *testing.T, root string, flags ...string) *mount {
	t.Helper()
	return startMountBin(t, storhfsBin, root, flags...)
}

// startMountBin is startMount with another build of storhfs (bin).
func startMountBin(t *testing.T, bin, root string, flags ...string) *mount {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return startMountBinAt(t, bin, root, dir, flags...)
}

// startMountAt mounts root at the existing directory dir, as startMount.
func startMountAt(t *testing.T, root, dir string, flags ...string) *mount {
	t.Helper()
	return startMountBinAt(t, storhfsBin, root, dir, flags...)
}

// startMountBinAt mounts root at the existing directory dir with the
// storhfs build bin, and waits for the ready line.
func startMountBinAt(t *testing.T, bin, root, dir string, flags ...string) *mount {
	t.Helper()
	return startMountArgs(t, bin, dir, append(flags, root, dir)...)
}

// startMountArgs runs `bin mount ARGS...` (in that order) for a mount at
// dir, and waits for the ready line.
func startMountArgs(t *testing.T, bin, dir string, mountArgs ...string) *mount {
	t.Helper()
	if ioUring && bin == storhfsBin {
		mountArgs = append([]string{"--io-uring"}, mountArgs...)
	}
	if noOpen && bin == storhfsBin {
		mountArgs = append([]string{"--no-open"}, mountArgs...)
	}
	cmd := exec.Command(bin, append([]string{"mount"}, mountArgs...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	m := &mount{t: t, dir: dir, cmd: cmd, done: make(chan error, 1), log: &lockedbuf.Buffer{}}
	cmd.Stderr = m.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case ready <- sc.Text():
			default:
			}
		}
	}()
	go func() { m.done <- cmd.Wait() }()
	t.Cleanup(m.forceUnmount)
	select {
	case line := <-ready:
		if !strings.Contains(line, "mounted") {
			t.Fatalf("unexpected first line from mount: %q", line)
		}
		m.ready = line
		if ioUring && bin == storhfsBin && !strings.Contains(line, "requests over io_uring") {
			t.Fatalf("STORHFS_TEST_IO_URING=1, but the mount does not serve over io_uring: %q; stderr: %s", line, m.log)
		}
	case err := <-m.done:
		m.done <- err
		t.Fatalf("mount exited early: %v; stderr: %s", err, m.log)
	case <-time.After(15 * time.Second):
		t.Fatalf("mount not ready after 15s; stderr: %s", m.log)
	}
	return m
}

// path joins parts below the mount point.
func (m *mount) path(parts ...string) string {
	return filepath.Join(append([]string{m.dir}, parts...)...)
}

// stop sends SIGTERM and returns the exit error (nil = exit 0).
func (m *mount) stop() error {
	m.t.Helper()
	if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-m.done:
		m.done <- err
		return err
	case <-time.After(10 * time.Second):
		return fmt.Errorf("mount did not exit 10s after SIGTERM")
	}
}

// forceUnmount is the cleanup: lazy unmount and kill, whatever state we are in.
func (m *mount) forceUnmount() {
	select {
	case err := <-m.done:
		m.done <- err
	default:
		m.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-m.done:
			m.done <- err
		case <-time.After(5 * time.Second):
			m.cmd.Process.Kill()
		}
	}
	if isMounted(m.dir) {
		exec.Command("umount", "-l", m.dir).Run()
		exec.Command("fusermount3", "-u", "-z", m.dir).Run()
	}
	if strings.Contains(m.log.String(), "DATA RACE") {
		m.t.Errorf("the mount reported a data race")
	}
	if m.t.Failed() {
		m.t.Logf("mount stderr:\n%s", m.log)
	}
}

func isMounted(dir string) bool {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && f[4] == dir {
			return true
		}
	}
	return false
}

// run runs a tool with a timeout in dir ("" = current) and returns its
// combined output and error.
func run(dir, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdin = nil
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func runOK(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out, err := run(dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func runFails(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out, err := run(dir, name, args...)
	if err == nil {
		t.Fatalf("%s %s succeeded, want failure\n%s", name, strings.Join(args, " "), out)
	}
	return out
}

func sh(t *testing.T, dir, script string) string {
	t.Helper()
	return runOK(t, dir, "sh", "-c", script)
}

// verify runs the core's verify() on a collection: records and indexes
// must agree.
func verify(t *testing.T, root, collection string) {
	t.Helper()
	out, err := run("", storhfsBin, "verify", "--strict", root, collection)
	if err != nil {
		t.Fatalf("verify %s: %v\n%s", collection, err, out)
	}
}

// storedPath is where the core keeps record id of collection.
func storedPath(root, collection, id string) string {
	return filepath.Join(root, collection, "data", id[24:26], id+".jsonc")
}

// storedIDs lists the record ids of a collection from the real layout.
func storedIDs(t *testing.T, root, collection string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, collection, "data", "*", "*.jsonc"))
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(files))
	for i, f := range files {
		ids[i] = strings.TrimSuffix(filepath.Base(f), ".jsonc")
	}
	return ids
}

func newID(t *testing.T) string {
	t.Helper()
	id, err := uuidv7.NewGenerator(nil, nil).New()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond for up to 5 s (kernel caches live 1 s).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 5s: %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// logShows waits up to 5 s for the mount's log to contain s: the mount
// writes its log line before it answers, but the test reads its stderr
// through a pipe, a little later.
func (m *mount) logShows(s string) bool {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if strings.Contains(m.log.String(), s) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}
