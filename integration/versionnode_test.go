package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestOldVersionPagesNeverServed: a read-write mount lets the kernel keep a
// record's pages across opens (a node per stored version:
// fusefs/recordversion.go), and no open made after a change ever reads the
// old version's pages (without OPEN, --no-open: none made after the
// watcher saw an outside change). Every round warms the kernel's pages of the record
// (two reads), changes it with the same size (so only the content tells
// the versions apart), and reads it back through fresh opens, at once:
//   - through the mount (cp onto the record; the reply to its close comes
//     after the commit);
//   - outside it, the way PHP's storh does (a temp file renamed over the
//     record) with the old mtime as well, so size and mtime are as the
//     kernel last saw them; nothing waits for the watcher.
//
// A reader keeps reading the record meanwhile, so opens race the writes.
func TestOldVersionPagesNeverServed(t *testing.T) {
	requireFuse(t, "cat", "cp")
	root := demoRoot(t, 3)
	m := startMount(t, root)
	id := storedIDs(t, root, "pages")[0]
	rec := m.path("pages", id+".jsonc")
	final := storedPath(root, "pages", id)
	dir := t.TempDir()
	version := func(n int) string { // the same size for every n
		return fmt.Sprintf(`{"id":"%s","data":{"round":"%06d","pad":"%s"}}`, id, n, fmt.Sprintf("%0900d", n))
	}

	ctx, cancel := context.WithCancel(context.Background())
	reader := exec.CommandContext(ctx, "sh", "-c", "while :; do cat "+rec+" > /dev/null 2>&1; done")
	mustOK(t, reader.Start())
	t.Cleanup(func() { cancel(); reader.Wait() })

	const rounds = 60
	stale := 0
	for n := 0; n < rounds; n++ {
		runOK(t, "", "cat", rec)
		runOK(t, "", "cat", rec) // the second read is served from the kept pages
		want := version(n)
		how := "through the mount"
		if n%2 == 0 {
			src := filepath.Join(dir, "v.jsonc")
			writeFile(t, src, want)
			runOK(t, "", "cp", src, rec)
		} else {
			how = "outside, same size and mtime"
			fi, err := os.Stat(final)
			mustOK(t, err)
			replaceLikePHP(t, root, "pages", id, want, fi.ModTime())
		}
		if stored := string(readFile(t, final)); stored != want {
			t.Fatalf("round %d (%s): the stored record is %.80q..., want %.80q...", n, how, stored, want)
		}
		if noOpen && n%2 == 1 {
			// Without OPEN nothing checks the stored file at an open: an
			// outside change shows once the watcher has invalidated the
			// node, as on a read-only mount.
			awaitVisible(t, "the outside change", func() bool { return runOK(t, "", "cat", rec) == want })
		}
		for i := 0; i < 3; i++ {
			if got := runOK(t, "", "cat", rec); got != want {
				stale++
				t.Errorf("round %d (%s), fresh read %d: got %.80q..., want %.80q...", n, how, i, got, want)
			}
		}
	}
	if stale > 0 {
		t.Errorf("%d of %d fresh reads after a change served an old version", stale, 3*rounds)
	}
}
