package integration

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"storhfs/internal/treetest"
)

// Edges of the write path (issue 12): refused shapes, rmdir of a collection
// holding more than the mount shows, ghost names, honest error reporting,
// and the safe-save names of common tools.

// rmdir decides before it removes anything: a collection that holds a
// foreign file (or records) stays byte-identical and rmdir says ENOTEMPTY.
func TestRmdirCollectionChecksFirst(t *testing.T) {
	requireFuse(t, "rmdir", "mkdir")
	root := demoRoot(t, 3)
	m := startMount(t, root)

	t.Run("foreign file present", func(t *testing.T) {
		coll := m.path("withreadme")
		runOK(t, "", "mkdir", coll)
		writeFile(t, filepath.Join(root, "withreadme", "README"), "what this collection is\n")
		// rmdir takes the collection's write lock, creating its (empty)
		// lock file as storh does; everything else must stay.
		writeFile(t, filepath.Join(root, "withreadme", ".storh", "write.lock"), "")
		before := treetest.Snapshot(t, root)
		if err := syscall.Rmdir(coll); err != syscall.ENOTEMPTY {
			t.Fatalf("rmdir of a collection holding a README = %v, want ENOTEMPTY", err)
		}
		treetest.AssertSame(t, "the refused rmdir", before, treetest.Snapshot(t, root))
		if !strings.Contains(m.log.String(), "holds README") {
			t.Errorf("the mount's log does not name the README:\n%s", m.log)
		}
	})
	t.Run("records present", func(t *testing.T) {
		before := treetest.Snapshot(t, root)
		if err := syscall.Rmdir(m.path("notes")); err != syscall.ENOTEMPTY {
			t.Fatalf("rmdir of a collection with records = %v, want ENOTEMPTY", err)
		}
		treetest.AssertSame(t, "the refused rmdir", before, treetest.Snapshot(t, root))
	})
	t.Run("empty collection", func(t *testing.T) {
		coll := m.path("empty")
		runOK(t, "", "mkdir", coll)
		runOK(t, "", "rmdir", coll)
		if _, err := os.Stat(filepath.Join(root, "empty")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("collection still in ROOT after rmdir: %v", err)
		}
	})
}
