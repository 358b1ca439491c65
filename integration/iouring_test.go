package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/internal/fuseuring"
)

// ioUring: with STORHFS_TEST_IO_URING=1 every mount of this build serves
// over io_uring (--io-uring), so the whole suite runs against that
// transport too (make test runs it both ways).
var ioUring = os.Getenv("STORHFS_TEST_IO_URING") == "1"

// useIOUring turns the kernel's FUSE io_uring switch on for an io_uring
// run and returns what puts it back.
func useIOUring() (restore func(), err error) {
	if !ioUring {
		return func() {}, nil
	}
	restore, err = fuseuring.TurnOn()
	if err != nil {
		return nil, fmt.Errorf("STORHFS_TEST_IO_URING=1: %w", err)
	}
	return restore, nil
}

// --io-uring on a kernel whose switch is off fails the mount with a line
// that names the switch, and leaves nothing mounted; with it on, records
// are read, created and edited through real tools, and the mount says it
// serves over io_uring. (With STORHFS_TEST_IO_URING=1 every other test
// runs over io_uring as well.)
func TestIOUringMount(t *testing.T) {
	requireFuse(t)
	if _, err := os.Stat(fuseuring.EnableParam); err != nil || os.Geteuid() != 0 {
		t.Skipf("needs root and FUSE over io_uring (Linux 6.14+, %s): %v", fuseuring.EnableParam, err)
	}
	old, err := os.ReadFile(fuseuring.EnableParam)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.WriteFile(fuseuring.EnableParam, old, 0) })
	root := demoRoot(t, 5)

	if err := os.WriteFile(fuseuring.EnableParam, []byte("N"), 0); err != nil {
		t.Skipf("cannot set the kernel's FUSE io_uring switch here: %v", err)
	}
	dir := t.TempDir()
	out, err := run("", storhfsBin, "mount", "--io-uring", root, dir)
	if code := exitCode(err); code != 14 || !strings.Contains(out, "enable_uring") {
		t.Errorf("mount --io-uring with the switch off: exit %d, %q; want 14 naming enable_uring", code, out)
	}
	if isMounted(dir) {
		t.Fatalf("%s is mounted after the refused mount", dir)
	}

	if err := os.WriteFile(fuseuring.EnableParam, []byte("Y"), 0); err != nil {
		t.Fatal(err)
	}
	m := startMount(t, root, "--io-uring")
	if !strings.Contains(m.ready, "requests over io_uring") {
		t.Fatalf("ready line %q does not say io_uring", m.ready)
	}
	pages := m.path("pages")
	ids := storedIDs(t, root, "pages")
	rec := filepath.Join(pages, ids[0]+".jsonc")
	runOK(t, "", "cmp", rec, storedPath(root, "pages", ids[0]))
	runOK(t, "", "sed", "-i", `s/"slug":"[^"]*"/"slug":"over-io-uring"/`, rec)
	if got := string(readFile(t, storedPath(root, "pages", ids[0]))); !strings.Contains(got, "over-io-uring") {
		t.Fatalf("stored after sed -i over io_uring = %q", got)
	}
	id := newID(t)
	sh(t, "", fmt.Sprintf(`printf '%%s' '%s' > %s`, record(id, `{"slug":"created-over-io-uring"}`), filepath.Join(pages, id+".jsonc")))
	if out := runOK(t, "", "grep", "-rl", "created-over-io-uring", pages); !strings.Contains(out, id) {
		t.Fatalf("grep -rl found %q", out)
	}
	verify(t, root, "pages")
	if err := m.stop(); err != nil {
		t.Fatalf("unmount: %v; stderr: %s", err, m.log)
	}
}
