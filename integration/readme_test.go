package integration

// TestReadme runs the commands of README.md. Every line of every ```sh
// block, every line of the ```fstab block and the ExecStart/ExecStop lines
// of the ```ini (systemd unit) block must be claimed by a scenario below or
// listed in readmeNotRunnable with the reason; a new README command without
// a test fails TestReadme/coverage. Commands run as written, with the
// README's example paths replaced: /var/storh/app by a generated storage
// root, /mnt/storh by a temporary mountpoint, bin/storhfs by the binary
// under test, demo-data by a demo root, /tmp/pages.jsonl by a temp file.
//
// mount(8) clears PATH and only looks for helpers in /sbin, so the
// /etc/fstab scenarios run in a private mount namespace (unshare) where
// /usr/local/bin (and, for the no-fuse3 case, /sbin) are empty temporary
// directories: the README's install commands then run unchanged, and
// nothing is installed on the machine. The fstab line is read from a
// temporary file through LIBMOUNT_FSTAB (mount(8)'s documented override).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/lockedbuf"

	"golang.org/x/sys/unix"
)

// readmeNotRunnable are README commands no test runs, with the reason.
var readmeNotRunnable = map[string]string{
	"make test": "runs the integration tests, this one included",
	"printf 'ROOT=/var/storh/app\\nOPTIONS=-o ro,log_level=info\\n' > /etc/storhfs/mnt-storh.conf": "writes /etc; TestContribUnit runs the unit with ROOT and OPTIONS substituted",
	"systemctl enable --now storhfs@$(systemd-escape --path /mnt/storh).service":                   "systemd does not run where the tests run; TestContribUnit runs the unit's ExecStart and ExecStop",
	"make install PREFIX=/usr/local":        "installs on the machine; TestDebianPackage runs it (make deb installs into a staging root)",
	"make deb && dpkg -i bin/storhfs_*.deb": "installs on the machine; TestDebianPackage builds the package and installs it in a throwaway namespace",
	// The GlusterFS configuration (README "More than one machine").
	"gluster volume set VOL performance.stat-prefetch off":                                                                    readmeGluster,
	"gluster volume set VOL performance.write-behind off":                                                                     readmeGluster,
	"gluster volume set VOL performance.open-behind off":                                                                      readmeGluster,
	"gluster volume set VOL performance.quick-read off":                                                                       readmeGluster,
	"mount -t glusterfs -o attribute-timeout=0,entry-timeout=0,negative-timeout=0,direct-io-mode=enable HOST:/VOL /srv/storh": readmeGluster,
}

// readmeGluster: the README's GlusterFS commands need a volume;
// TestSharedGluster starts one with these settings, and
// TestReadmeGlusterSettings checks the README shows exactly them.
const readmeGluster = "needs a GlusterFS volume; TestSharedGluster configures its own with the same settings (TestReadmeGlusterSettings)"

// readmeScenario runs some README commands; commands are the README lines
// it claims (normalized: comment stripped, spaces collapsed).
type readmeScenario struct {
	name     string
	commands []string
	run      func(t *testing.T, rd *readmeDoc)
}

const (
	readmeRoot  = "/var/storh/app"
	readmeMnt   = "/mnt/storh"
	readmeBin   = "bin/storhfs"
	fstabPrefix = "fstab: "
	unitPrefix  = "unit: "
)

var readmeScenarios = []readmeScenario{
	{
		name: "foreground mount",
		commands: []string{
			"bin/storhfs mount /var/storh/app /mnt/storh",
			"umount /mnt/storh",
		},
		run: testReadmeForegroundMount,
	},
	{
		name:     "foreground read-only mount",
		commands: []string{"bin/storhfs mount --read-only /var/storh/app /mnt/storh"},
		run:      testReadmeForegroundReadOnly,
	},
	{
		name:     "background mount",
		commands: []string{"bin/storhfs mount --daemon /var/storh/app /mnt/storh"},
		run:      testReadmeDaemonMount,
	},
	{
		name: "maintenance commands",
		commands: []string{
			"bin/storhfs stats demo-data pages",
			"bin/storhfs verify --strict demo-data pages",
			"bin/storhfs export demo-data pages /tmp/pages.jsonl",
			"bin/storhfs query --where kind=draft --where 'score>=900' --order score --desc --limit 3 demo-data pages",
			`job=$(bin/storhfs claim demo-data jobs) && bin/storhfs complete demo-data jobs "$(echo "$job" | jq -r .id)"`,
		},
		run: testReadmeMaintenance,
	},
	{
		name:     "make run",
		commands: []string{"make run"},
		run:      testReadmeMakeRun,
	},
	{
		name: "fstab with fuse3 mount.fuse",
		commands: []string{
			"install -m 755 bin/storhfs /usr/local/bin/storhfs",
			"mount -t fuse.storhfs -o ro /var/storh/app /mnt/storh",
			"umount /mnt/storh",
			"mount /mnt/storh",
			"mount -a",
			fstabPrefix + "/var/storh/app /mnt/storh fuse.storhfs nofail,x-systemd.requires-mounts-for=/var/storh/app 0 0",
		},
		run: testReadmeFstabWithFuse3,
	},
	{
		name: "fstab with the mount.fuse.storhfs link",
		commands: []string{
			"install -m 755 bin/storhfs /usr/local/bin/storhfs",
			"ln -s /usr/local/bin/storhfs /sbin/mount.fuse.storhfs",
			"mount -t fuse.storhfs -o ro /var/storh/app /mnt/storh",
			"umount /mnt/storh",
		},
		run: testReadmeFstabWithLink,
	},
	{
		// systemd is not running where the tests run (CI containers): the
		// unit's ExecStart and ExecStop are run as systemd would run them.
		name: "systemd unit",
		commands: []string{
			unitPrefix + "ExecStart=/usr/local/bin/storhfs mount /var/storh/app /mnt/storh",
			unitPrefix + "ExecStop=/bin/umount /mnt/storh",
		},
		run: testReadmeSystemdUnit,
	},
	{
		name: "troubleshooting a dead mount",
		commands: []string{
			"bin/storhfs unmount --force /mnt/storh",
		},
		run: testReadmeDeadMount,
	},
}

func TestReadme(t *testing.T) {
	rd := loadReadme(t)
	t.Run("coverage", func(t *testing.T) {
		claimed := map[string]bool{}
		for _, sc := range readmeScenarios {
			for _, cmd := range sc.commands {
				claimed[cmd] = true
				if !rd.has(cmd) {
					t.Errorf("scenario %q runs %q, which is not in README.md any more", sc.name, cmd)
				}
			}
		}
		for cmd := range readmeNotRunnable {
			if !rd.has(cmd) {
				t.Errorf("readmeNotRunnable lists %q, which is not in README.md", cmd)
			}
		}
		for _, cmd := range rd.commands {
			if _, skip := readmeNotRunnable[cmd]; !claimed[cmd] && !skip {
				t.Errorf("README.md command %q is run by no test: add it to a scenario in integration/readme_test.go (or to readmeNotRunnable with the reason)", cmd)
			}
		}
	})
	for _, sc := range readmeScenarios {
		t.Run(sc.name, func(t *testing.T) {
			for _, cmd := range sc.commands {
				if !rd.has(cmd) {
					t.Fatalf("README.md has no command %q", cmd)
				}
			}
			sc.run(t, rd)
		})
	}
}

// readmeDoc is what README.md asks the reader to run.
type readmeDoc struct {
	commands []string // in README order
}

func (rd *readmeDoc) has(cmd string) bool {
	for _, c := range rd.commands {
		if c == cmd {
			return true
		}
	}
	return false
}

var shellComment = regexp.MustCompile(`(^|\s)#.*$`)

// loadReadme collects the commands of the sh, fstab and ini fenced blocks.
func loadReadme(t *testing.T) *readmeDoc {
	t.Helper()
	data := readFile(t, filepath.Join("..", "README.md"))
	rd := &readmeDoc{}
	lang, inBlock := "", false
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			inBlock = !inBlock
			lang = strings.TrimPrefix(trimmed, "```")
			continue
		}
		if !inBlock {
			continue
		}
		norm := strings.Join(strings.Fields(shellComment.ReplaceAllString(trimmed, "")), " ")
		if norm == "" {
			continue
		}
		switch lang {
		case "sh":
			rd.commands = append(rd.commands, norm)
		case "fstab":
			rd.commands = append(rd.commands, fstabPrefix+norm)
		case "ini":
			if strings.HasPrefix(norm, "ExecStart=") || strings.HasPrefix(norm, "ExecStop=") {
				rd.commands = append(rd.commands, unitPrefix+norm)
			}
		}
	}
	if inBlock {
		t.Fatalf("README.md: unterminated code block")
	}
	if len(rd.commands) < 10 {
		t.Fatalf("README.md: found only %d commands: %q", len(rd.commands), rd.commands)
	}
	return rd
}

// requireRoot skips where the README says "as root" (umount(8), mount(8)
// with a helper, mount namespaces); CI runs the tests as root.
func requireRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("needs root: %s", why)
	}
}

// readmePaths replaces the README's example paths in a command.
type readmePaths struct{ root, mnt string }

func (p readmePaths) subst(cmd string) string {
	return strings.NewReplacer(
		"/usr/local/bin/storhfs", "/usr/local/bin/storhfs", // not bin/storhfs
		readmeRoot, p.root,
		readmeMnt, p.mnt,
		readmeBin, storhfsBin,
	).Replace(cmd)
}

func newReadmePaths(t *testing.T) readmePaths {
	t.Helper()
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	return readmePaths{root: demoRoot(t, 20), mnt: mnt}
}

// startReadmeMount runs a foreground mount command line (argv) and waits
// for its ready line; cleanup unmounts and stops it whatever happened.
func startReadmeMount(t *testing.T, mnt string, argv []string) *mount {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	m := &mount{t: t, dir: mnt, cmd: cmd, done: make(chan error, 1), log: &lockedbuf.Buffer{}}
	waitReady(t, m, "storhfs: mounted ", 15*time.Second)
	return m
}

// waitReady starts m.cmd and waits for a stdout line starting with prefix.
func waitReady(t *testing.T, m *mount, prefix string, timeout time.Duration) {
	t.Helper()
	stdout, err := m.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	m.cmd.Stderr = m.log
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		seen := false
		for sc.Scan() {
			fmt.Fprintln(m.log, sc.Text())
			if !seen && strings.HasPrefix(sc.Text(), prefix) {
				seen = true
				close(ready)
			}
		}
	}()
	go func() { m.done <- m.cmd.Wait() }()
	t.Cleanup(m.forceUnmount)
	select {
	case <-ready:
	case err := <-m.done:
		m.done <- err
		t.Fatalf("%v exited before it was ready: %v\n%s", m.cmd.Args, err, m.log)
	case <-time.After(timeout):
		t.Fatalf("%v not ready after %v\n%s", m.cmd.Args, timeout, m.log)
	}
}

// waitExit waits for a started mount process to exit and returns its error.
func (m *mount) waitExit(timeout time.Duration) error {
	select {
	case err := <-m.done:
		m.done <- err
		return err
	case <-time.After(timeout):
		return fmt.Errorf("%v still running %v later", m.cmd.Args, timeout)
	}
}

// checkServes checks that dir shows the root's pages with their stored bytes.
func checkServes(t *testing.T, dir, root string) {
	t.Helper()
	ids := storedIDs(t, root, "pages")
	entries, err := os.ReadDir(filepath.Join(dir, "pages"))
	if err != nil {
		t.Fatalf("list the mount: %v", err)
	}
	if len(entries) != len(ids) || len(ids) == 0 {
		t.Fatalf("the mount lists %d pages, the root has %d", len(entries), len(ids))
	}
	got := readFile(t, filepath.Join(dir, "pages", ids[0]+".jsonc"))
	if want := readFile(t, storedPath(root, "pages", ids[0])); string(got) != string(want) {
		t.Errorf("record %s through the mount differs from the stored file", ids[0])
	}
}

// checkRefusesWrites checks that creating and replacing a record fail with EROFS.
func checkRefusesWrites(t *testing.T, dir, root string) {
	t.Helper()
	id := storedIDs(t, root, "pages")[0]
	before := readFile(t, storedPath(root, "pages", id))
	for _, name := range []string{id, newID(t)} {
		err := os.WriteFile(filepath.Join(dir, "pages", name+".jsonc"), []byte(`{"id":"`+name+`"}`), 0o644)
		if !errors.Is(err, syscall.EROFS) {
			t.Errorf("write %s on a read-only mount: %v, want EROFS", name, err)
		}
	}
	if got := readFile(t, storedPath(root, "pages", id)); string(got) != string(before) {
		t.Errorf("a read-only mount changed record %s", id)
	}
}

// writeRecord creates a record through the mount and checks it landed in ROOT.
func writeRecord(t *testing.T, dir, root string) {
	t.Helper()
	id := newID(t)
	body := `{"id":"` + id + `","data":{"title":"via fstab"}}`
	writeFile(t, filepath.Join(dir, "pages", id+".jsonc"), body)
	if got := string(readFile(t, storedPath(root, "pages", id))); got != body {
		t.Errorf("stored record %s = %q, want %q", id, got, body)
	}
	verify(t, root, "pages")
}

func testReadmeForegroundMount(t *testing.T, rd *readmeDoc) {
	requireFuse(t, "umount", "fusermount3")
	requireRoot(t, "umount of a FUSE mount")
	p := newReadmePaths(t)
	m := startReadmeMount(t, p.mnt, strings.Fields(p.subst("bin/storhfs mount /var/storh/app /mnt/storh")))
	checkServes(t, m.dir, p.root)
	writeRecord(t, m.dir, p.root)
	// "Unmount from another shell with umount /mnt/storh".
	sh(t, "", p.subst("umount /mnt/storh"))
	if err := m.waitExit(10 * time.Second); err != nil {
		t.Fatalf("mount after umount: %v, want exit 0", err)
	}
	if isMounted(m.dir) {
		t.Errorf("%s still mounted", m.dir)
	}
	// ... or fusermount3 -u /mnt/storh.
	m = startReadmeMount(t, p.mnt, strings.Fields(p.subst("bin/storhfs mount /var/storh/app /mnt/storh")))
	runOK(t, "", "fusermount3", "-u", m.dir)
	if err := m.waitExit(10 * time.Second); err != nil {
		t.Fatalf("mount after fusermount3 -u: %v, want exit 0", err)
	}
}

func testReadmeForegroundReadOnly(t *testing.T, rd *readmeDoc) {
	requireFuse(t)
	p := newReadmePaths(t)
	m := startReadmeMount(t, p.mnt, strings.Fields(p.subst("bin/storhfs mount --read-only /var/storh/app /mnt/storh")))
	checkServes(t, m.dir, p.root)
	checkRefusesWrites(t, m.dir, p.root)
	// Ctrl-C unmounts.
	if err := m.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := m.waitExit(10 * time.Second); err != nil {
		t.Fatalf("mount after SIGINT: %v, want exit 0", err)
	}
	if isMounted(m.dir) {
		t.Errorf("%s still mounted after SIGINT", m.dir)
	}
}

func testReadmeDaemonMount(t *testing.T, rd *readmeDoc) {
	requireFuse(t, "fusermount3")
	p := newReadmePaths(t)
	unmountDaemonOnCleanup(t, p.mnt)
	argv := strings.Fields(p.subst("bin/storhfs mount --daemon /var/storh/app /mnt/storh"))
	if code, stderr := runMountCmd(t, nil, argv[1:]...); code != 0 {
		t.Fatalf("%v: exit %d: %s", argv, code, stderr)
	}
	checkServes(t, p.mnt, p.root)
	unmountAndWait(t, p.mnt)
}

func testReadmeMaintenance(t *testing.T, rd *readmeDoc) {
	demo := demoRoot(t, 20)
	export := filepath.Join(t.TempDir(), "pages.jsonl")
	subst := strings.NewReplacer("bin/storhfs", storhfsBin, "demo-data", demo, "/tmp/pages.jsonl", export).Replace
	out := sh(t, "", subst("bin/storhfs stats demo-data pages"))
	if !strings.Contains(out, `"records": 20,`) {
		t.Errorf("stats: %s, want 20 records", out)
	}
	out = sh(t, "", subst("bin/storhfs verify --strict demo-data pages"))
	if !strings.Contains(out, `"ok": true`) {
		t.Errorf("verify: %s", out)
	}
	sh(t, "", subst("bin/storhfs export demo-data pages /tmp/pages.jsonl"))
	if n := strings.Count(string(readFile(t, export)), "\n"); n != 20 {
		t.Errorf("export wrote %d lines, want 20", n)
	}
	out = sh(t, "", subst("bin/storhfs query --where kind=draft --where 'score>=900' --order score --desc --limit 3 demo-data pages"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) == 0 || len(lines) > 3 {
		t.Errorf("query printed %d records, want 1 to 3:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if !strings.Contains(l, `"kind":"draft"`) {
			t.Errorf("query printed a record that is not a draft: %s", l)
		}
	}
	out = sh(t, "", subst(`job=$(bin/storhfs claim demo-data jobs) && bin/storhfs complete demo-data jobs "$(echo "$job" | jq -r .id)"`))
	if strings.TrimSpace(out) != "1" {
		t.Errorf("claim and complete: %q, want one job completed", out)
	}
}

// testReadmeMakeRun runs `make run` with the demo root and mountpoint moved
// to temp dirs (make variables DEMO_ROOT and MNT), then presses Ctrl-C.
func testReadmeMakeRun(t *testing.T, rd *readmeDoc) {
	requireFuse(t, "make")
	tmp := t.TempDir()
	mnt := filepath.Join(tmp, "mnt")
	demo := filepath.Join(tmp, "demo-data")
	cmd := exec.Command("make", "--no-print-directory", "-C", "..", "run", "DEMO_ROOT="+demo, "MNT="+mnt)
	// Own process group: Ctrl-C reaches make and the mount, as from a terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	m := &mount{t: t, dir: mnt, cmd: cmd, done: make(chan error, 1), log: &lockedbuf.Buffer{}}
	t.Cleanup(func() {
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	waitReady(t, m, "storhfs: mounted ", 3*time.Minute)
	checkServes(t, mnt, demo)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// make itself dies of the SIGINT; the mount must have unmounted cleanly.
	if err := m.waitExit(15 * time.Second); err != nil && !strings.Contains(err.Error(), "interrupt") {
		t.Fatalf("make run after Ctrl-C: %v\n%s", err, m.log)
	}
	if !strings.Contains(m.log.String(), "storhfs: unmounted "+mnt) {
		t.Errorf("make run output has no unmount line:\n%s", m.log)
	}
	if isMounted(mnt) {
		t.Errorf("%s still mounted after Ctrl-C", mnt)
	}
}

func testReadmeSystemdUnit(t *testing.T, rd *readmeDoc) {
	requireFuse(t, "umount")
	requireRoot(t, "ExecStop runs umount")
	p := newReadmePaths(t)
	var start, stop []string
	for _, cmd := range rd.commands {
		line := strings.TrimPrefix(cmd, unitPrefix)
		if line == cmd {
			continue
		}
		key, value, _ := strings.Cut(line, "=")
		argv := strings.Fields(strings.ReplaceAll(p.subst(value), "/usr/local/bin/storhfs", storhfsBin))
		switch key {
		case "ExecStart":
			start = argv
		case "ExecStop":
			stop = argv
		}
	}
	if start == nil || stop == nil {
		t.Fatalf("README unit has no ExecStart or ExecStop")
	}
	m := startReadmeMount(t, p.mnt, start)
	checkServes(t, m.dir, p.root)
	runOK(t, "", stop[0], stop[1:]...)
	if err := m.waitExit(10 * time.Second); err != nil {
		t.Fatalf("ExecStart process after ExecStop: %v, want exit 0", err)
	}
	if isMounted(m.dir) {
		t.Errorf("%s still mounted after ExecStop", m.dir)
	}
}

func testReadmeDeadMount(t *testing.T, rd *readmeDoc) {
	requireFuse(t, "fusermount3", "ls")
	root := demoRoot(t, 20)
	for _, cleanup := range []string{"bin/storhfs unmount --force /mnt/storh"} {
		m := startMount(t, root)
		if err := m.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		m.waitExit(10 * time.Second)
		out, err := run("", "ls", m.dir)
		// Over io_uring the kernel ends requests of a dead server with
		// ECONNABORTED as well (README, Troubleshooting).
		dead := strings.Contains(out, "Transport endpoint is not connected") ||
			ioUring && strings.Contains(out, "Software caused connection abort")
		if err == nil || !dead {
			t.Fatalf("ls on the mount of a killed storhfs: %v %q, want 'Transport endpoint is not connected'", err, out)
		}
		sh(t, "", readmePaths{root: root, mnt: m.dir}.subst(cleanup))
		if isMounted(m.dir) {
			t.Errorf("%q left %s mounted", cleanup, m.dir)
		}
		if out, err := run("", "ls", m.dir); err != nil || out != "" {
			t.Errorf("ls %s after %q: %v %q, want an empty directory", m.dir, cleanup, err, out)
		}
	}
}

func testReadmeFstabWithFuse3(t *testing.T, rd *readmeDoc) {
	requireFuse(t, "unshare", "nsenter", "umount")
	requireRoot(t, "mount(8) with a helper, in a mount namespace")
	if _, err := os.Stat("/sbin/mount.fuse"); err != nil {
		t.Fatalf("/sbin/mount.fuse is required (Debian's fuse3 installs it; .ci/run does): %v", err)
	}
	p := newReadmePaths(t)
	ns := newMountNamespace(t, false)
	ns.runOK(t, p.subst("install -m 755 bin/storhfs /usr/local/bin/storhfs"))

	ns.mount(t, p.subst("mount -t fuse.storhfs -o ro /var/storh/app /mnt/storh"), p.mnt)
	checkServes(t, ns.path(p.mnt), p.root)
	checkRefusesWrites(t, ns.path(p.mnt), p.root)
	ns.unmount(t, p.subst("umount /mnt/storh"), p.mnt)

	var fstabLine string
	for _, cmd := range rd.commands {
		if strings.HasPrefix(cmd, fstabPrefix) {
			fstabLine = strings.TrimPrefix(cmd, fstabPrefix)
		}
	}
	writeFile(t, ns.fstab, p.subst(fstabLine)+"\n")
	ns.mount(t, p.subst("mount /mnt/storh"), p.mnt)
	checkServes(t, ns.path(p.mnt), p.root)
	writeRecord(t, ns.path(p.mnt), p.root)
	// mount -a skips a line that is already mounted.
	ns.runOK(t, p.subst("mount -a"))
	if n := ns.mountCount(t, p.mnt); n != 1 {
		t.Errorf("%s is mounted %d times after mount -a, want once", p.mnt, n)
	}
	ns.unmount(t, p.subst("umount /mnt/storh"), p.mnt)
	ns.mount(t, p.subst("mount -a"), p.mnt)
	checkServes(t, ns.path(p.mnt), p.root)
	ns.unmount(t, p.subst("umount /mnt/storh"), p.mnt)
}

func testReadmeFstabWithLink(t *testing.T, rd *readmeDoc) {
	requireFuse(t, "unshare", "nsenter", "umount")
	requireRoot(t, "mount(8) with a helper, in a mount namespace")
	p := newReadmePaths(t)
	ns := newMountNamespace(t, true)
	ns.runOK(t, p.subst("install -m 755 bin/storhfs /usr/local/bin/storhfs"))
	ns.runOK(t, p.subst("ln -s /usr/local/bin/storhfs /sbin/mount.fuse.storhfs"))

	ns.mount(t, p.subst("mount -t fuse.storhfs -o ro /var/storh/app /mnt/storh"), p.mnt)
	checkServes(t, ns.path(p.mnt), p.root)
	checkRefusesWrites(t, ns.path(p.mnt), p.root)
	ns.unmount(t, p.subst("umount /mnt/storh"), p.mnt)

	// log=FILE keeps the mount's messages: a rejected commit is in it.
	logFile := filepath.Join(t.TempDir(), "storhfs.log")
	ns.mount(t, p.subst("mount -t fuse.storhfs -o log="+logFile+" /var/storh/app /mnt/storh"), p.mnt)
	writeRecord(t, ns.path(p.mnt), p.root)
	bad := newID(t)
	if err := os.WriteFile(filepath.Join(ns.path(p.mnt), "pages", bad+".jsonc"), []byte("not json"), 0o644); err == nil {
		t.Errorf("an invalid record was accepted")
	}
	ns.unmount(t, p.subst("umount /mnt/storh"), p.mnt)
	log := string(readFile(t, logFile))
	if !strings.Contains(log, bad) || !strings.Contains(log, "was unmounted") {
		t.Errorf("log=%s does not name the rejected record %s or the unmount:\n%s", logFile, bad, log)
	}
	if strings.Contains(log, "DATA RACE") {
		t.Errorf("the mount reported a data race:\n%s", log)
	}
	// The helper reports a failing mount with the mount's one-line error
	// and mount(8)'s status for a failed mount, 32.
	missing := filepath.Join(p.root, "missing")
	wantErr := "storhfs: storage root " + missing + " does not exist\n"
	out, err := ns.run("mount -t fuse.storhfs " + missing + " " + p.mnt)
	if err == nil || !strings.Contains(out, wantErr) {
		t.Errorf("mount of a missing root: %v %q, want %q", err, out, wantErr)
	}
	cmd := exec.Command(storhfsBin, missing, p.mnt, "-o", "rw,dev,suid")
	outb, err := cmd.CombinedOutput()
	if string(outb) != wantErr || cmd.ProcessState.ExitCode() != 32 {
		t.Errorf("storhfs %s %s -o rw,dev,suid: %v %q, want exit 32 and %q", missing, p.mnt, err, outb, wantErr)
	}
}

// mountNamespace is a private mount namespace held open by a sleeping
// process. Its /usr/local/bin (and /sbin with hideSbin) are empty temp
// directories, its fstab is the file ns.fstab, and copies of other FUSE
// mounts are detached so that no other mount depends on it.
type mountNamespace struct {
	holder  *exec.Cmd
	fstab   string
	daemons map[string]int // mountpoint -> pid of its storhfs process
}

func newMountNamespace(t *testing.T, hideSbin bool) *mountNamespace {
	t.Helper()
	tmp := t.TempDir()
	bin, sbin := filepath.Join(tmp, "usr-local-bin"), filepath.Join(tmp, "sbin")
	for _, d := range []string{bin, sbin} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := `set -e
grep ' - fuse' /proc/self/mountinfo | cut -d' ' -f5 | while read -r m; do umount -l "$m" 2>/dev/null || true; done
mount --bind "$1" /usr/local/bin
if [ -n "$2" ]; then mount --bind "$2" /sbin; fi
echo ready
exec sleep 600`
	hidden := ""
	if hideSbin {
		hidden = sbin
	}
	ns := &mountNamespace{fstab: filepath.Join(tmp, "fstab"), daemons: map[string]int{}}
	ns.holder = exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", bin, hidden)
	ns.holder.Stderr = os.Stderr
	stdout, err := ns.holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.holder.Start(); err != nil {
		t.Fatal(err)
	}
	// Processes orphaned inside (the storhfs daemons) are reparented to
	// this test process, which can then reap them and see their status.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for mnt, pid := range ns.daemons {
			syscall.Kill(pid, syscall.SIGTERM)
			if _, err := waitPid(pid, 5*time.Second); err != nil {
				syscall.Kill(pid, syscall.SIGKILL)
				waitPid(pid, 5*time.Second)
				t.Logf("storhfs for %s had to be killed", mnt)
			}
		}
		ns.holder.Process.Kill()
		ns.holder.Wait()
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("mount namespace setup: %q %v", line, err)
	}
	return ns
}

// run runs a shell command inside the namespace, with LIBMOUNT_FSTAB set.
func (ns *mountNamespace) run(command string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "nsenter", "--target", strconv.Itoa(ns.holder.Process.Pid), "--mount", "--", "sh", "-c", command)
	cmd.Env = append(os.Environ(), "LIBMOUNT_FSTAB="+ns.fstab)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (ns *mountNamespace) runOK(t *testing.T, command string) string {
	t.Helper()
	out, err := ns.run(command)
	if err != nil {
		t.Fatalf("%s (in the mount namespace): %v\n%s", command, err, out)
	}
	return out
}

// path is how this process reaches a path of the namespace.
func (ns *mountNamespace) path(p string) string {
	return fmt.Sprintf("/proc/%d/root%s", ns.holder.Process.Pid, p)
}

// mount runs a mount command that must return with mnt mounted and served
// by a storhfs process that outlived mount(8).
func (ns *mountNamespace) mount(t *testing.T, command, mnt string) {
	t.Helper()
	out := ns.runOK(t, command)
	if n := ns.mountCount(t, mnt); n != 1 {
		t.Fatalf("%s: %s mounted %d times, want once\n%s", command, mnt, n, out)
	}
	pid := findMountDaemon(t, mnt)
	if pid == 0 {
		t.Fatalf("%s: no storhfs process serves %s", command, mnt)
	}
	ns.daemons[mnt] = pid
}

// unmount runs an unmount command and checks that the storhfs process
// serving mnt exits 0.
func (ns *mountNamespace) unmount(t *testing.T, command, mnt string) {
	t.Helper()
	ns.runOK(t, command)
	pid := ns.daemons[mnt]
	status, err := waitPid(pid, 10*time.Second)
	if err != nil {
		t.Fatalf("storhfs for %s after %q: %v", mnt, command, err)
	}
	delete(ns.daemons, mnt)
	if !status.Exited() || status.ExitStatus() != 0 {
		t.Errorf("storhfs for %s after %q: status %v, want exit 0", mnt, command, status)
	}
	if n := ns.mountCount(t, mnt); n != 0 {
		t.Errorf("%s still mounted after %q", mnt, command)
	}
}

// mountCount counts the mounts at mnt in the namespace.
func (ns *mountNamespace) mountCount(t *testing.T, mnt string) int {
	t.Helper()
	data := readFile(t, fmt.Sprintf("/proc/%d/mountinfo", ns.holder.Process.Pid))
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == mnt {
			n++
		}
	}
	return n
}

// findMountDaemon returns the pid of the detached `storhfs mount` serving
// mnt, or 0.
func findMountDaemon(t *testing.T, mnt string) int {
	t.Helper()
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
		if len(args) > 3 && args[1] == "mount" && args[2] == "--detached-log" && args[len(args)-1] == mnt {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			return pid
		}
	}
	return 0
}

// waitPid reaps pid (a child, or an orphan reparented to this subreaper).
func waitPid(pid int, timeout time.Duration) (syscall.WaitStatus, error) {
	deadline := time.Now().Add(timeout)
	for {
		var status syscall.WaitStatus
		got, err := syscall.Wait4(pid, &status, syscall.WNOHANG, nil)
		if err != nil {
			return 0, fmt.Errorf("wait for pid %d: %w", pid, err)
		}
		if got == pid {
			return status, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("pid %d still running after %v", pid, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
