package integration

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/lockedbuf"
)

// Background mode, log levels, syslog, systemd readiness and the exit
// codes of `storhfs mount` (issue 13).

// runMountCmd runs `storhfs ARGS...` to completion (bounded) and returns
// its exit code and stderr.
func runMountCmd(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(storhfsBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr lockedbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), stderr.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, stderr.String()
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("storhfs %q did not return within 30 s; stderr: %s", args, stderr.String())
		return 0, ""
	}
}

// unmountDaemonOnCleanup unmounts a background mount at dir at cleanup,
// aborting its FUSE connection if it is still there afterwards.
func unmountDaemonOnCleanup(t *testing.T, dir string) {
	t.Cleanup(func() {
		if !isMounted(dir) {
			return
		}
		exec.Command("fusermount3", "-u", dir).Run()
		if isMounted(dir) {
			exec.Command("umount", dir).Run()
		}
		abortMountsAt(t, dir)
	})
}

func newMountDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// unmountAndWait unmounts a background mount and waits (bounded) until it
// is gone.
func unmountAndWait(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("fusermount3", "-u", dir).CombinedOutput(); err != nil {
		t.Fatalf("fusermount3 -u %s: %v: %s", dir, err, out)
	}
	eventually(t, dir+" unmounted", func() bool { return !isMounted(dir) })
}

// --daemon returns once the mount serves; info logs the mount, each commit
// and the unmount to the log file.
func TestDaemonMountServesWhenItReturns(t *testing.T) {
	requireFuse(t, "fusermount3", "cp")
	root := demoRoot(t, 20)
	dir := newMountDir(t)
	logFile := filepath.Join(t.TempDir(), "storhfs.log")
	unmountDaemonOnCleanup(t, dir)
	code, stderr := runMountCmd(t, nil, "mount", root, dir, "--daemon", "-o", "log_level=info,log="+logFile)
	if code != 0 {
		t.Fatalf("mount --daemon exited %d: %s", code, stderr)
	}
	// No waiting: the mount serves as soon as the command returned.
	checkServes(t, dir, root)

	id := newID(t)
	src := filepath.Join(t.TempDir(), "new.jsonc")
	writeFile(t, src, `{"id":"`+id+`","data":{"title":"daemon"}}`)
	runOK(t, "", "cp", src, filepath.Join(dir, "pages", id+".jsonc"))
	unmountAndWait(t, dir)
	eventually(t, "the unmount in the log", func() bool {
		b, _ := os.ReadFile(logFile)
		return strings.Contains(string(b), "info: unmounted mountpoint="+dir)
	})
	log := string(readFile(t, logFile))
	for _, want := range []string{
		"info: mounted root=" + root + " mountpoint=" + dir,
		"info: commit path=pages id=" + id + " outcome=stored",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log has no %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "debug:") {
		t.Errorf("info level logged debug lines:\n%s", log)
	}
}

// --log-level warn (the default) leaves out mounts and commits; debug adds
// the FUSE traffic.
func TestLogLevels(t *testing.T) {
	requireFuse(t, "fusermount3", "ls")
	root := demoRoot(t, 10)
	for _, c := range []struct {
		level         string
		want, notWant string
	}{
		{"warn", "", "info: mounted"},
		{"debug", "debug: ", ""},
	} {
		dir := newMountDir(t)
		logFile := filepath.Join(t.TempDir(), "storhfs.log")
		unmountDaemonOnCleanup(t, dir)
		if code, stderr := runMountCmd(t, nil, "mount", "--daemon", "--log-level", c.level, "--log-file", logFile, root, dir); code != 0 {
			t.Fatalf("%s: mount --daemon exited %d: %s", c.level, code, stderr)
		}
		runOK(t, "", "ls", filepath.Join(dir, "pages"))
		unmountAndWait(t, dir)
		log := string(readFile(t, logFile))
		if c.want != "" && !strings.Contains(log, c.want) {
			t.Errorf("--log-level %s: log has no %q:\n%s", c.level, c.want, log)
		}
		if c.notWant != "" && strings.Contains(log, c.notWant) {
			t.Errorf("--log-level %s: log has %q:\n%s", c.level, c.notWant, log)
		}
	}
}

// listenUnixgram listens on a fresh unix datagram socket.
// startNotifiedMount runs argv (a storhfs mount serving dir) with
// NOTIFY_SOCKET set, as systemd's Type=notify does, and returns the mount
// and the socket its notifications arrive on. Cleanup unmounts.
func startNotifiedMount(t *testing.T, dir string, argv ...string) (*mount, *net.UnixConn) {
	t.Helper()
	notify := listenUnixgram(t, "notify")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+notify.LocalAddr().String())
	m := &mount{t: t, dir: dir, cmd: cmd, done: make(chan error, 1), log: &lockedbuf.Buffer{}}
	cmd.Stdout, cmd.Stderr = m.log, m.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { m.done <- cmd.Wait() }()
	t.Cleanup(m.forceUnmount)
	unmountDaemonOnCleanup(t, dir)
	return m, notify
}

func listenUnixgram(t *testing.T, name string) *net.UnixConn {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// readDatagram returns the next datagram, or fails after timeout.
func readDatagram(t *testing.T, conn *net.UnixConn, timeout time.Duration) string {
	t.Helper()
	buf := make([]byte, 4096)
	conn.SetReadDeadline(time.Now().Add(timeout))
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("no datagram on %s: %v", conn.LocalAddr(), err)
	}
	return string(buf[:n])
}

// Without a log file a daemonised mount logs to syslog.
func TestDaemonLogsToSyslog(t *testing.T) {
	requireFuse(t, "fusermount3")
	root := demoRoot(t, 10)
	dir := newMountDir(t)
	syslogConn := listenUnixgram(t, "log")
	unmountDaemonOnCleanup(t, dir)
	if code, stderr := runMountCmd(t, nil, "mount", "--daemon", "--log-level", "info", "--syslog-socket", syslogConn.LocalAddr().String(), root, dir); code != 0 {
		t.Fatalf("mount --daemon exited %d: %s", code, stderr)
	}
	msg := readDatagram(t, syslogConn, 15*time.Second)
	// <30>: facility daemon (3), severity info (6).
	if !strings.HasPrefix(msg, "<30>") || !strings.Contains(msg, "storhfs") || !strings.Contains(msg, "mounted root="+root) {
		t.Errorf("syslog got %q, want a daemon.info message of the mount", msg)
	}
	unmountAndWait(t, dir)
}

// With NOTIFY_SOCKET, READY=1 arrives once the mountpoint serves, and
// STOPPING=1 on SIGTERM (a Type=notify unit).
func TestSystemdNotify(t *testing.T) {
	requireFuse(t, "ls")
	root := demoRoot(t, 20)
	dir := newMountDir(t)
	m, notify := startNotifiedMount(t, dir, storhfsBin, "mount", root, dir)

	if got := readDatagram(t, notify, 15*time.Second); got != "READY=1" {
		t.Fatalf("first notification %q, want READY=1", got)
	}
	// READY=1 was sent only after the mount served: it serves now.
	if !isMounted(dir) {
		t.Fatalf("READY=1 before %s was mounted", dir)
	}
	checkServes(t, dir, root)
	if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if got := readDatagram(t, notify, 15*time.Second); got != "STOPPING=1" {
		t.Errorf("notification after SIGTERM %q, want STOPPING=1", got)
	}
	if err := m.waitExit(15 * time.Second); err != nil {
		t.Errorf("mount after SIGTERM: %v, want exit 0\n%s", err, m.log)
	}
}

// Each failure class of `storhfs mount` has its exit code (docs/cli.md),
// in the foreground and with --daemon.
func TestMountExitCodes(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 10)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	writeFile(t, file, "x")
	foreign := filepath.Join(tmp, "foreign")
	nonEmpty := filepath.Join(tmp, "nonempty")
	for _, d := range []string{foreign, nonEmpty} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(d, "README"), "x")
	}
	mounted := startMount(t, root).dir
	free := newMountDir(t)
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"usage", []string{root}, 2, "need ROOT and MOUNTPOINT"},
		{"bad log level", []string{"--log-level", "loud", root, free}, 2, "unknown log level"},
		{"root missing", []string{filepath.Join(tmp, "nope"), free}, 10, "does not exist"},
		{"root a file", []string{file, free}, 10, "not a directory"},
		{"root foreign", []string{foreign, free}, 10, "holds no storh collection"},
		{"mountpoint missing", []string{root, filepath.Join(tmp, "nope")}, 11, "does not exist"},
		{"mountpoint not empty", []string{root, nonEmpty}, 11, "is not empty"},
		{"mountpoint inside root", []string{root, filepath.Join(root, "pages")}, 11, "inside storage root"},
		{"already mounted", []string{root, mounted}, 12, "already mounted"},
		{"log file unwritable", []string{"--log-file", filepath.Join(tmp, "nope", "x.log"), root, free}, 15, "log file"},
	}
	for _, c := range cases {
		for _, daemon := range []bool{false, true} {
			args := append([]string{"mount"}, c.args...)
			if daemon {
				args = append(args, "--daemon")
			}
			code, stderr := runMountCmd(t, nil, args...)
			if code != c.code || !strings.Contains(stderr, c.msg) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%s (daemon %v): exit %d, stderr %q; want %d and one line with %q", c.name, daemon, code, stderr, c.code, c.msg)
			}
		}
	}
}

// No /dev/fuse is exit 13, a mount the kernel refuses 14: both need a
// private mount namespace (root) to take /dev/fuse away.
func TestMountExitCodesWithoutFuse(t *testing.T) {
	requireFuse(t, "unshare")
	requireRoot(t, "a private mount namespace hides /dev/fuse")
	root := demoRoot(t, 10)
	free := newMountDir(t)
	for _, c := range []struct {
		name, hide string
		code       int
		msg        string
	}{
		{"no /dev/fuse", "mount -t tmpfs none /dev", 13, "no /dev/fuse"},
		{"kernel refuses", "mount --bind /dev/null /dev/fuse", 14, "mount " + free},
	} {
		script := c.hide + ` && exec "$0" mount "$1" "$2"`
		cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, storhfsBin, root, free)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.code || !strings.Contains(string(out), c.msg) {
			t.Errorf("%s: %v, output %q; want exit %d with %q", c.name, err, out, c.code, c.msg)
		}
	}
}
