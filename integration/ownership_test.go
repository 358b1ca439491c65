package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The FUSE ownership options of sshfs and rclone (issue 13): uid=, gid=,
// umask=, default_permissions and allow_root.

// asNobody runs a tool as uid and gid 65534 with no supplementary groups.
func asNobody(args ...string) (string, error) {
	return run("", "setpriv", append([]string{"--reuid=65534", "--regid=65534", "--clear-groups"}, args...)...)
}

// statOwners is `stat -c '%u %g %a'` of each path, keyed by the path
// relative to the mount.
func statOwners(t *testing.T, m *mount, rel ...string) map[string]string {
	t.Helper()
	paths := make([]string, len(rel))
	for i, r := range rel {
		paths[i] = m.path(r)
	}
	lines := strings.Split(strings.TrimSpace(runOK(t, "", "stat", append([]string{"-c", "%u %g %a"}, paths...)...)), "\n")
	got := map[string]string{}
	for i, r := range rel {
		got[r] = lines[i]
	}
	return got
}

// wantOwners compares statOwners with want (path -> "uid gid mode").
func wantOwners(t *testing.T, m *mount, want map[string]string) {
	t.Helper()
	var rel []string
	for r := range want {
		rel = append(rel, r)
	}
	for r, got := range statOwners(t, m, rel...) {
		if got != want[r] {
			t.Errorf("stat %s: %q, want %q", r, got, want[r])
		}
	}
}

// mountOptions are the options of the mount at dir in /proc/self/mountinfo
// (the kernel's: field 6 and the super options after " - ").
func mountOptions(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		mountPart, superPart, _ := strings.Cut(line, " - ")
		f, super := strings.Fields(mountPart), strings.Fields(superPart)
		if len(f) > 5 && f[4] == dir && len(super) > 2 {
			return f[5] + "," + super[2]
		}
	}
	t.Fatalf("%s is not in /proc/self/mountinfo", dir)
	return ""
}

// uid=, gid= and umask= set the owner and the bits of everything shown:
// records, folders, logs, queues, views, the control folder, entries of
// a listing (READDIRPLUS) and files just created through the mount, in
// both forms of the options (storhfs mount and the mount(8) helper).
func TestOwnershipOptionsShowOnEveryFile(t *testing.T) {
	requireFuse(t, "stat", "ls", "sh")
	root := demoRoot(t, 3)
	record := filepath.Join("pages", storedIDs(t, root, "pages")[0]+".jsonc")
	everything := func(file, dir, roFile, roDir string) map[string]string {
		return map[string]string{
			".": dir, "pages": dir, "app": dir, "app/users": dir, record: file,
			"events": roDir, "events/records.ndjson": roFile, "events/segments": roDir,
			"jobs": roDir, "jobs/pending.ndjson": roFile,
			".storhfs": roDir, ".storhfs/errors": roFile,
		}
	}

	t.Run("no options", func(t *testing.T) {
		m := startMount(t, root)
		wantOwners(t, m, everything("0 0 644", "0 0 755", "0 0 444", "0 0 555"))
	})

	t.Run("storhfs mount -o", func(t *testing.T) {
		m := startMount(t, root, "-o", "uid=4321,gid=5432,umask=027")
		// First, before anything below app/users was looked up: the
		// attributes come with the listing (READDIRPLUS).
		for _, line := range strings.Split(strings.TrimSpace(runOK(t, "", "ls", "-ln", m.path("app", "users"))), "\n")[1:] {
			if f := strings.Fields(line); len(f) < 4 || f[0] != "-rw-r-----" || f[2] != "4321" || f[3] != "5432" {
				t.Errorf("ls -ln app/users: %q, want -rw-r----- 4321 5432", line)
			}
		}
		wantOwners(t, m, everything("4321 5432 640", "4321 5432 750", "4321 5432 440", "4321 5432 550"))

		// Created through the mount: while open (not committed yet), then
		// stored at close.
		id := newID(t)
		rec := m.path("pages", id+".jsonc")
		open := sh(t, "", fmt.Sprintf(`exec 3>%s; stat -c '%%u %%g %%a' %s; printf '%%s' '{"id":"%s","data":{"title":"owned"}}' >&3`, rec, rec, id))
		if strings.TrimSpace(open) != "4321 5432 640" {
			t.Errorf("a record open for its first write: %q, want 4321 5432 640", open)
		}
		wantOwners(t, m, map[string]string{filepath.Join("pages", id+".jsonc"): "4321 5432 640"})
		if _, err := os.Stat(storedPath(root, "pages", id)); err != nil {
			t.Errorf("the record written through the mount is not stored: %v", err)
		}
		// A collection made with mkdir, as MKDIR answers it.
		coll := m.path("made")
		if got := sh(t, "", fmt.Sprintf(`mkdir %s && stat -c '%%u %%g %%a' %s`, coll, coll)); strings.TrimSpace(got) != "4321 5432 750" {
			t.Errorf("a collection made with mkdir: %q, want 4321 5432 750", got)
		}
	})

	t.Run("read-only mount keeps its bits read-only", func(t *testing.T) {
		m := startMount(t, root, "--read-only", "--uid", "7", "--umask", "0")
		wantOwners(t, m, everything("7 0 444", "7 0 555", "7 0 444", "7 0 555"))
	})

	t.Run("mount(8) helper form", func(t *testing.T) {
		dir := newMountDir(t)
		unmountDaemonOnCleanup(t, dir)
		if code, stderr := runMountCmd(t, nil, root, dir, "-o", "rw,uid=99,gid=98,umask=077"); code != 0 {
			t.Fatalf("storhfs ROOT MNT -o ...: exit %d: %s", code, stderr)
		}
		m := &mount{t: t, dir: dir}
		wantOwners(t, m, map[string]string{".": "99 98 700", record: "99 98 600", "jobs/pending.ndjson": "99 98 400"})
		unmountAndWait(t, dir)
	})
}

// With the kernel checking permissions (default_permissions, which
// allow_other turns on), a user other than root is let in or refused by
// the owner and bits the options show.
func TestDefaultPermissionsCheckTheBitsShown(t *testing.T) {
	requireFuse(t, "setpriv", "cat", "stat", "sh")
	root := demoRoot(t, 3)
	record := filepath.Join("pages", storedIDs(t, root, "pages")[0]+".jsonc")

	// Root without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: a caller the
	// kernel lets into a mount without allow_other (it is the mount's
	// user) that does not pass over permission bits.
	rootWithoutDAC := func(args ...string) (string, error) {
		drop := "-dac_override,-dac_read_search"
		return run("", "setpriv", append([]string{"--bounding-set=" + drop, "--inh-caps=" + drop}, args...)...)
	}
	t.Run("default_permissions alone", func(t *testing.T) {
		m := startMount(t, root, "-o", "default_permissions,uid=4321,umask=077")
		if opts := mountOptions(t, m.dir); !strings.Contains(opts, "default_permissions") || strings.Contains(opts, "allow_other") {
			t.Errorf("-o default_permissions mounted with %q, want default_permissions and no allow_other", opts)
		}
		if out, err := rootWithoutDAC("cat", m.path(record)); err == nil || !strings.Contains(out, "Permission denied") {
			t.Errorf("root without DAC capabilities reading a record shown 0600 for uid 4321: %v %q, want Permission denied", err, out)
		}
		runOK(t, "", "cat", m.path(record)) // root passes the bits

		// Without it the daemon checks nothing: the same caller reads.
		plain := startMount(t, root, "-o", "uid=4321,umask=077")
		if opts := mountOptions(t, plain.dir); strings.Contains(opts, "default_permissions") {
			t.Errorf("a mount without default_permissions has it: %q", opts)
		}
		if out, err := rootWithoutDAC("cat", plain.path(record)); err != nil {
			t.Errorf("root without DAC capabilities reading through a mount without default_permissions: %v %q", err, out)
		}
	})

	t.Run("others refused by umask", func(t *testing.T) {
		m := startMount(t, root, "-o", "allow_other,default_permissions,umask=077")
		openToOthers(t, m.dir)
		if out, err := asNobody("cat", m.path(record)); err == nil || !strings.Contains(out, "Permission denied") {
			t.Errorf("uid 65534 reading a 0600 record of root: %v %q, want Permission denied", err, out)
		}
		if out, err := asNobody("ls", m.dir); err == nil || !strings.Contains(out, "Permission denied") {
			t.Errorf("uid 65534 listing a 0700 folder of root: %v %q, want Permission denied", err, out)
		}
		runOK(t, "", "cat", m.path(record))
	})

	t.Run("owner by uid= let in", func(t *testing.T) {
		m := startMount(t, root, "-o", "allow_other,uid=65534,gid=65534,umask=077")
		openToOthers(t, m.dir)
		if out, err := asNobody("cat", m.path(record)); err != nil {
			t.Errorf("uid 65534 reading a record shown as its own: %v %q", err, out)
		}
		id := newID(t)
		rec := m.path("pages", id+".jsonc")
		if out, err := asNobody("sh", "-c", fmt.Sprintf(`printf '%%s' '{"id":"%s","data":{"title":"by nobody"}}' > %s`, id, rec)); err != nil {
			t.Fatalf("uid 65534 creating a record in a folder shown as its own: %v %q", err, out)
		}
		if _, err := os.Stat(storedPath(root, "pages", id)); err != nil {
			t.Errorf("the record uid 65534 wrote is not stored: %v", err)
		}
		if out, _ := asNobody("stat", "-c", "%u %g %a", rec); strings.TrimSpace(out) != "65534 65534 600" {
			t.Errorf("the new record: %q, want 65534 65534 600", out)
		}
	})
}

// allow_root lets root and the user running storhfs in and refuses every
// other user, although the kernel lets everyone in (allow_other): the
// daemon refuses them, as libfuse does.
func TestAllowRootRefusesOtherUsers(t *testing.T) {
	requireFuse(t, "setpriv", "cat", "stat", "ls", "touch")
	root := demoRoot(t, 3)
	record := filepath.Join("pages", storedIDs(t, root, "pages")[0]+".jsonc")

	m := startMount(t, root, "-o", "allow_root")
	openToOthers(t, m.dir)
	if opts := mountOptions(t, m.dir); !strings.Contains(opts, "allow_other") {
		t.Errorf("-o allow_root mounted with %q, want the kernel's allow_other", opts)
	}
	for _, args := range [][]string{
		{"stat", m.dir}, {"ls", m.dir}, {"cat", m.path(record)}, {"stat", m.path("pages")},
		{"touch", m.path("pages", newID(t)+".jsonc")},
	} {
		if out, err := asNobody(args...); err == nil || !strings.Contains(out, "Permission denied") {
			t.Errorf("uid 65534: %q: %v %q, want Permission denied", args, err, out)
		}
	}
	runOK(t, "", "cat", m.path(record))
	runOK(t, "", "ls", m.path("pages"))

	other := startMount(t, root, "-o", "allow_other")
	openToOthers(t, other.dir)
	if out, err := asNobody("cat", other.path(record)); err != nil {
		t.Errorf("uid 65534 reading through -o allow_other: %v %q", err, out)
	}
}
