package integration

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/lockedbuf"

	"github.com/storhfs/storhfs/internal/fusectl"
)

// The mount's lifecycle: what it refuses before mounting, and how it ends
// (signals, an unmount from outside) without leaving a store open or
// lying to a writer.

// refusalBound bounds how long a refused mount may take to exit (the bug
// it guards against is a mount that never returns).
const refusalBound = 20 * time.Second

// wantRefused runs `storhfs mount args...` and requires a non-zero exit
// within refusalBound, with one line naming want, and nothing mounted at
// mountpoint. A mount that hangs instead (serving its own mountpoint) is
// aborted through fusectl so that the test run goes on.
func wantRefused(t *testing.T, mountpoint, want string, args ...string) {
	t.Helper()
	ensureFusectl(t)
	// Resolved now: once something hangs there, resolving could hang too.
	mountedAt := []string{mountpoint}
	if real, err := filepath.EvalSymlinks(mountpoint); err == nil && real != mountpoint {
		mountedAt = append(mountedAt, real)
	}
	abort := func() {
		for _, dir := range mountedAt {
			abortMountsAt(t, dir)
		}
	}
	cmd := exec.Command(storhfsBin, append([]string{"mount"}, args...)...)
	out := &lockedbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(refusalBound):
		abort()
		cmd.Process.Kill()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		t.Fatalf("mount %v did not exit within %v (it mounted or hung; aborted); output: %s", args, refusalBound, out)
	}
	if isMounted(mountpoint) || len(mountedAt) > 1 && isMounted(mountedAt[1]) {
		abort()
		t.Fatalf("mount %v: something was mounted at %s; output: %s", args, mountpoint, out)
	}
	if err == nil {
		t.Fatalf("mount %v exited 0, want a refusal; output: %s", args, out)
	}
	text := out.String()
	if lines := strings.Split(strings.TrimSpace(text), "\n"); len(lines) != 1 || !strings.Contains(text, want) {
		t.Fatalf("mount %v: output %q, want one line containing %q", args, text, want)
	}
}

func TestMountRefusesOverlappingRootAndMountpoint(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 3)
	inside := filepath.Join(root, "mnt")
	sub := filepath.Join(root, "sub")
	for _, d := range []string{inside, sub} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(inside, link); err != nil {
		t.Fatal(err)
	}
	rootLink := filepath.Join(t.TempDir(), "rootlink")
	if err := os.Symlink(root, rootLink); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, root, mountpoint, want string
	}{
		{"mountpoint inside root", root, inside, "is inside storage root"},
		{"same directory", root, root, "are the same directory"},
		{"root inside mountpoint", sub, root, "is inside mountpoint"},
		{"mountpoint symlinked into root", root, link, "resolves to " + inside},
		{"root reached through a symlink", rootLink, inside, "resolves to " + root},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantRefused(t, c.mountpoint, c.want, c.root, c.mountpoint)
		})
	}
}

func TestMountRefusesNonEmptyMountpoint(t *testing.T) {
	requireFuse(t, "ls")
	root := demoRoot(t, 3)
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "notes.txt"), "hidden by a mount\n")
	wantRefused(t, dir, "--allow-non-empty", root, dir)

	m := startMountAt(t, root, dir, "--allow-non-empty")
	if out := runOK(t, "", "ls", m.dir); !strings.Contains(out, "pages") || strings.Contains(out, "notes.txt") {
		t.Errorf("ls of the mount over a non-empty folder: %q", out)
	}
	if err := m.stop(); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, filepath.Join(dir, "notes.txt"))); got != "hidden by a mount\n" {
		t.Errorf("the mountpoint's file after unmount: %q", got)
	}
}

func TestMountRefusesForeignRoot(t *testing.T) {
	requireFuse(t, "ls")
	home := filepath.Join(t.TempDir(), "home")
	for _, d := range []string{"Documents/letters", "projects"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(home, ".bashrc"), "# shell\n")
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, mnt, "--allow-foreign-root", home, mnt)

	dotOnly := filepath.Join(t.TempDir(), "fresh-home")
	if err := os.Mkdir(dotOnly, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dotOnly, ".profile"), "# shell\n")
	wantRefused(t, mnt, "--allow-foreign-root", dotOnly, mnt)

	m := startMount(t, home, "--allow-foreign-root")
	if out := runOK(t, "", "ls", m.dir); strings.TrimSpace(out) != "" {
		t.Errorf("ls of a foreign root mounted anyway: %q, want an empty folder", out)
	}
	if err := m.stop(); err != nil {
		t.Fatal(err)
	}

	// A new storage root mounts: empty, or holding only lost+found (the
	// root folder of a volume of its own).
	empty := filepath.Join(t.TempDir(), "new-root")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := startMount(t, empty).stop(); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(empty, "lost+found"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := startMount(t, empty).stop(); err != nil {
		t.Fatal(err)
	}
}

// ensureFusectl mounts the FUSE control file system if it is not mounted,
// so that a test can abort a connection (and the mount can count the
// requests waiting for an answer).
func ensureFusectl(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), " /sys/fs/fuse/connections fusectl ") {
		return
	}
	if out, err := exec.Command("mount", "-t", "fusectl", "fusectl", "/sys/fs/fuse/connections").CombinedOutput(); err != nil {
		t.Logf("cannot mount fusectl (%v: %s); a hung mount could not be aborted", err, out)
	}
}

// abortMountsAt aborts the FUSE connection of every mount at dir (a mount
// that hangs serving itself cannot be unmounted otherwise) and detaches it.
func abortMountsAt(t *testing.T, dir string) {
	for conn := fuseConnection(dir); conn != ""; conn = fuseConnection(dir) {
		t.Errorf("a mount was left at %s; aborting its FUSE connection %s", dir, conn)
		os.WriteFile(filepath.Join(conn, "abort"), []byte("1"), 0)
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount -l %s: %v: %s", dir, err, out)
			return
		}
	}
}

// fuseConnection is the fusectl directory of the storhfs mount at dir, or "".
func fuseConnection(dir string) string {
	minor, err := fusectl.MinorOf(dir)
	if err != nil {
		return ""
	}
	return filepath.Join(fusectl.ConnectionsDir, strconv.FormatUint(uint64(minor), 10))
}

// abortOnCleanup makes sure at cleanup that m's FUSE connection is gone:
// a mount still running then gets SIGTERM, and if it has not exited 5 s
// later its connection is aborted, so that a mount which failed to end
// cannot hang the test run. It runs before the harness's own cleanup
// (cleanups run last-in first-out).
func abortOnCleanup(t *testing.T, m *mount) {
	t.Helper()
	ensureFusectl(t)
	conn := fuseConnection(m.dir)
	if conn == "" {
		t.Fatalf("no FUSE connection found for %s", m.dir)
	}
	t.Cleanup(func() {
		if m.waitExit(0) != nil {
			m.cmd.Process.Signal(syscall.SIGTERM)
		}
		if err := m.waitExit(5 * time.Second); err == nil || !strings.Contains(err.Error(), "still running") {
			return // exited: the kernel releases the connection itself
		}
		if _, err := os.Stat(conn); err == nil {
			t.Errorf("the mount did not exit 5 s after SIGTERM; aborting its FUSE connection %s", conn)
			os.WriteFile(filepath.Join(conn, "abort"), []byte("1"), 0)
		}
	})
}

// writerMarkers lists the writer markers of this mount's process in the
// collection's .storh/writers/.
func (m *mount) writerMarkers(t *testing.T, root, collection string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, collection, ".storh", "writers"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var ours []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), fmt.Sprint(m.cmd.Process.Pid)+".") {
			ours = append(ours, e.Name())
		}
	}
	return ours
}

// writeRecordThrough stores a new record of pages through the mount, so
// the collection's store is open and its writer marker exists.
func writeRecordThrough(t *testing.T, m *mount, root string) string {
	t.Helper()
	id := newID(t)
	writeFile(t, m.path("pages", id+".jsonc"), fmt.Sprintf(`{"id":%q,"data":{"title":"lifecycle"}}`, id))
	if _, err := os.Stat(storedPath(root, "pages", id)); err != nil {
		t.Fatalf("record written through the mount is not stored: %v", err)
	}
	if len(m.writerMarkers(t, root, "pages")) == 0 {
		t.Fatalf("no writer marker of the mount in pages/.storh/writers after a write")
	}
	return id
}

// wantCleanEnd requires the mount to have exited 0 within bound, unmounted,
// with no writer marker left.
func wantCleanEnd(t *testing.T, m *mount, root string, bound time.Duration) {
	t.Helper()
	if err := m.waitExit(bound); err != nil {
		t.Fatalf("mount exit: %v; stderr: %s", err, m.log)
	}
	if isMounted(m.dir) {
		t.Errorf("%s is still mounted after the mount exited", m.dir)
	}
	if left := m.writerMarkers(t, root, "pages"); len(left) > 0 {
		t.Errorf("writer markers left behind: %v", left)
	}
}

func TestSignalsUnmountCleanly(t *testing.T) {
	requireFuse(t)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			root := demoRoot(t, 3)
			m := startMount(t, root)
			abortOnCleanup(t, m)
			writeRecordThrough(t, m, root)
			if err := m.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			wantCleanEnd(t, m, root, 15*time.Second)
		})
	}
}

func TestExternalUnmountClosesStores(t *testing.T) {
	requireFuse(t, "umount")
	root := demoRoot(t, 3)
	m := startMount(t, root)
	abortOnCleanup(t, m)
	writeRecordThrough(t, m, root)
	runOK(t, "", "umount", m.dir)
	wantCleanEnd(t, m, root, 15*time.Second)
}

// fsFigures are a file system's total and free blocks as a tool shows them.
type fsFigures struct{ total, free uint64 }

func statFS(t *testing.T, dir string) fsFigures {
	t.Helper()
	var f fsFigures
	out := runOK(t, "", "stat", "-f", "-c", "%b %f", dir)
	if _, err := fmt.Sscan(out, &f.total, &f.free); err != nil {
		t.Fatalf("stat -f %s printed %q: %v", dir, out, err)
	}
	return f
}

func dfFigures(t *testing.T, dir string) fsFigures {
	t.Helper()
	var f fsFigures
	lines := strings.Split(strings.TrimSpace(runOK(t, "", "df", "-P", dir)), "\n")
	fields := strings.Fields(lines[len(lines)-1])
	var used uint64
	if len(fields) < 4 {
		t.Fatalf("df -P %s printed %q", dir, lines)
	}
	if _, err := fmt.Sscan(strings.Join(fields[1:4], " "), &f.total, &used, &f.free); err != nil {
		t.Fatalf("df -P %s printed %q: %v", dir, lines, err)
	}
	return f
}

// sameFS compares figures of the same file system taken a moment apart:
// totals exactly, free space within 1% (other processes write meanwhile).
func sameFS(t *testing.T, what string, got, want fsFigures) {
	t.Helper()
	if want.total == 0 {
		t.Fatalf("%s: the storage root's file system shows 0 blocks", what)
	}
	diff := max(got.free, want.free) - min(got.free, want.free)
	if got.total != want.total || diff > want.total/100 {
		t.Errorf("%s: mount shows %d blocks, %d free; the storage root's file system %d, %d free", what, got.total, got.free, want.total, want.free)
	}
}

func TestStatfsShowsRootFileSystem(t *testing.T) {
	requireFuse(t, "df", "stat")
	root := demoRoot(t, 3)
	m := startMount(t, root)
	sameFS(t, "df -P", dfFigures(t, m.dir), dfFigures(t, root))
	for _, dir := range []string{m.dir, m.path("pages"), m.path("events"), m.path("app", "users")} {
		sameFS(t, "stat -f "+dir, statFS(t, dir), statFS(t, root))
	}
}
