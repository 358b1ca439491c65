package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/lockedbuf"

	"github.com/storhfs/storhfs/internal/corpus"
)

// packageInstallScript installs the .deb with dpkg -i and mounts a root
// with `mount -t fuse.storhfs` through it, inside a private mount
// namespace whose /usr and /var are overlays on a tmpfs: dpkg's changes
// (the files, its database, its log) vanish with the namespace, so the
// machine running the test is never changed. Arguments: scratch dir,
// .deb, ROOT, MOUNTPOINT. It prints the FUSE connection of the mount
// ("conn=MAJOR:MINOR") as soon as it exists, for the test's cleanup.
const packageInstallScript = `set -eu
T=$1 DEB=$2 ROOT=$3 MNT=$4
mount -t tmpfs tmpfs "$T"
for d in usr var; do
	mkdir "$T/$d-up" "$T/$d-work"
	mount -t overlay overlay -o "lowerdir=/$d,upperdir=$T/$d-up,workdir=$T/$d-work" "/$d"
done
dpkg -i "$DEB" >/dev/null
test -x /usr/bin/storhfs
test "$(readlink -f /sbin/mount.fuse.storhfs)" = /usr/bin/storhfs
mount -t fuse.storhfs "$ROOT" "$MNT"
echo "conn=$(awk -v m="$MNT" '$5 == m { print $3 }' /proc/self/mountinfo)"
echo "pages=$(ls "$MNT/pages" | wc -l)"
umount "$MNT"
dpkg -r storhfs >/dev/null
test ! -e /usr/bin/storhfs
echo removed
`

// make deb builds a package of the binary, the mount(8) helper link, the
// man page, the completions and the unit; installed with dpkg, it mounts
// a root with mount -t fuse.storhfs.
func TestDebianPackage(t *testing.T) {
	requireRoot(t, "dpkg -i and mount namespaces")
	requireFuse(t, "make", "unshare", "umount")
	for _, tool := range []string{"dpkg-deb", "dpkg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: not a Debian system", tool)
		}
	}
	if _, err := exec.Command("dpkg", "-s", "storhfs").CombinedOutput(); err == nil {
		t.Skip("a storhfs package is installed on this machine: not touching it")
	}
	tmp := t.TempDir()
	deb := filepath.Join(tmp, "storhfs.deb")
	build := exec.Command("make", "-s", "deb",
		"BIN="+filepath.Join(tmp, "storhfs"), "DEB_ROOT="+filepath.Join(tmp, "deb-root"), "DEB="+deb)
	build.Dir = corpus.ModuleRoot()
	if out, err := runBounded(t, build, 5*time.Minute); err != nil {
		t.Fatalf("make deb: %v\n%s", err, out)
	}

	contents := runOK(t, "", "dpkg-deb", "--contents", deb)
	for _, want := range []string{
		"./usr/bin/storhfs",
		"./usr/sbin/mount.fuse.storhfs -> /usr/bin/storhfs",
		"./usr/share/man/man1/storhfs.1",
		"./usr/share/bash-completion/completions/storhfs",
		"./usr/share/zsh/site-functions/_storhfs",
		"./usr/share/fish/vendor_completions.d/storhfs.fish",
		"./usr/lib/systemd/system/storhfs@.service",
	} {
		if !strings.Contains(contents, want) {
			t.Errorf("package has no %s:\n%s", want, contents)
		}
	}
	unit := runOK(t, "", "sh", "-c", `dpkg-deb --fsys-tarfile "$0" | tar -xOf - ./usr/lib/systemd/system/storhfs@.service`, deb)
	if !strings.Contains(unit, "ExecStart=/usr/bin/storhfs mount ") || strings.Contains(unit, "/usr/local/") {
		t.Errorf("the packaged unit does not run /usr/bin/storhfs:\n%s", unit)
	}

	root := demoRoot(t, 20)
	mnt := newMountDir(t)
	scratch := filepath.Join(tmp, "ns")
	if err := os.Mkdir(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", packageInstallScript, "sh", scratch, deb, root, mnt)
	out, err := runBounded(t, cmd, time.Minute)
	// A mount the script left behind lives in its namespace: abort it.
	for _, line := range strings.Split(out, "\n") {
		if conn, ok := strings.CutPrefix(line, "conn=0:"); ok && conn != "" {
			t.Cleanup(func() { os.WriteFile("/sys/fs/fuse/connections/"+conn+"/abort", []byte("1"), 0) })
		}
	}
	if err != nil {
		if strings.Contains(out, "overlay") && strings.Contains(out, "mount") && os.Getenv("CI") != "true" {
			t.Skipf("no overlay mounts here: %s", out)
		}
		t.Fatalf("install and mount in a namespace: %v\n%s", err, out)
	}
	if !strings.Contains(out, "pages=20\n") || !strings.Contains(out, "removed") {
		t.Errorf("the installed package did not mount the root's 20 pages:\n%s", out)
	}
	if _, err := os.Stat("/usr/bin/storhfs"); err == nil {
		t.Errorf("/usr/bin/storhfs exists outside the namespace")
	}
}

// runBounded runs cmd, killing it after timeout, and returns its combined
// output.
func runBounded(t *testing.T, cmd *exec.Cmd, timeout time.Duration) (string, error) {
	t.Helper()
	var out lockedbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(timeout):
		cmd.Process.Kill()
		return out.String(), <-done
	}
}
