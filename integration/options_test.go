package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storhfs mount takes its flags after ROOT and MOUNTPOINT too, and -o
// lists as /etc/fstab writes them.
func TestMountOptionsAnywhere(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 3)
	m := startMount(t, root, "-o", "ro,no_watch")
	out := runFails(t, "", "sh", "-c", "echo x > "+m.path("pages", "x.tmp"))
	if !strings.Contains(out, "Read-only file system") {
		t.Errorf("write on -o ro: %q, want EROFS", out)
	}

	logFile := filepath.Join(t.TempDir(), "storhfs.log")
	dir := filepath.Join(t.TempDir(), "mnt2")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m2 := startMountArgs(t, storhfsBin, dir, root, dir, "--max-buffer-mb", "64", "-o", "log="+logFile)
	id := newID(t)
	bad := filepath.Join(t.TempDir(), "bad.jsonc")
	writeFile(t, bad, `{"id":"`+id+`"}`)
	runFails(t, "", "cp", bad, m2.path("pages", id+".jsonc"))
	eventually(t, "the refusal in the -o log=FILE", func() bool {
		b, _ := os.ReadFile(logFile)
		return strings.Contains(string(b), id) && strings.Contains(string(b), "rejected")
	})
	if strings.Contains(m2.log.String(), id) {
		t.Errorf("the refusal went to stderr too:\n%s", m2.log)
	}
}
