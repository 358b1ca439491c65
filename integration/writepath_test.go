package integration

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/storhfs/storhfs/internal/treetest"

	"golang.org/x/sys/unix"
)

// Data-loss cases of the write path, driven through a real mount with raw
// system calls (dup, O_EXCL, writes after rename) that shell tools do not
// expose one by one.

func openFile(t *testing.T, path string, flags int) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return f
}

func writeAt(t *testing.T, f *os.File, s string, off int64) {
	t.Helper()
	if _, err := f.WriteAt([]byte(s), off); err != nil {
		t.Fatalf("write %s: %v", f.Name(), err)
	}
}

func storedContent(t *testing.T, root, collection, id string) string {
	t.Helper()
	b, err := os.ReadFile(storedPath(root, collection, id))
	if errors.Is(err, fs.ErrNotExist) {
		return "<missing>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWritePathKeepsData runs the write path's data-loss cases against one
// mount.
func TestWritePathKeepsData(t *testing.T) {
	requireFuse(t, "touch", "ls")
	root := demoRoot(t, 30)
	m := startMount(t, root)
	pages := m.path("pages")
	ids := storedIDs(t, root, "pages")
	slices.Sort(ids)

	// A failed rmdir must not close the store under an open writer.
	t.Run("rmdir refused while a record is open for writing", func(t *testing.T) {
		id := newID(t)
		f := openFile(t, filepath.Join(pages, id+".jsonc"), os.O_CREATE|os.O_WRONLY|os.O_EXCL)
		writeAt(t, f, record(id, `{"slug":"rmdir-race"}`), 0)
		err := syscall.Rmdir(pages)
		if err != syscall.EBUSY {
			t.Errorf("rmdir pages with an open writer = %v, want EBUSY", err)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("close after the refused rmdir: %v (content lost)", err)
		}
		if got := storedContent(t, root, "pages", id); !strings.Contains(got, "rmdir-race") {
			t.Fatalf("stored %q", got)
		}
		verify(t, root, "pages")
	})

	// Writes through a descriptor of a temp file renamed onto a record.
	t.Run("writes after rename onto a record are committed", func(t *testing.T) {
		id := ids[0]
		tmp := filepath.Join(pages, "save.tmp")
		f := openFile(t, tmp, os.O_CREATE|os.O_RDWR|os.O_TRUNC)
		first := record(id, `{"slug":"page-0000","v":"1"}`)
		writeAt(t, f, first, 0)
		if err := os.Rename(tmp, filepath.Join(pages, id+".jsonc")); err != nil {
			t.Fatal(err)
		}
		second := record(id, `{"slug":"page-0000","v":"2"}`)
		writeAt(t, f, second, 0)
		if err := f.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		if got := storedContent(t, root, "pages", id); got != second {
			t.Fatalf("stored %q, want the write made after the rename", got)
		}
		assertNoScratchLeft(t, pages)
		verify(t, root, "pages")
	})

	// O_EXCL and a dup'd descriptor closed before anything was written.
	t.Run("a new record stays while open; O_EXCL sees it", func(t *testing.T) {
		id := newID(t)
		path := filepath.Join(pages, id+".jsonc")
		f := openFile(t, path, os.O_CREATE|os.O_WRONLY|os.O_EXCL)
		dup, err := unix.Dup(int(f.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("stat of the open new record: %v", err)
		}
		unix.Close(dup) // EINVAL (nothing written yet) is expected and ignored
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			t.Errorf("fstat of the open new record: %v", err)
		}
		// The failed close took the name (a failed create leaves none,
		// issue 12 item 7), but not the record being written: O_EXCL
		// still fails, and a write brings the name back.
		if g, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644); !errors.Is(err, fs.ErrExist) {
			if g != nil {
				g.Close()
			}
			t.Errorf("second O_EXCL create = %v, want EEXIST", err)
		}
		writeAt(t, f, record(id, `{"slug":"excl-made"}`), 0)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("stat of the open new record once written: %v", err)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		if got := storedContent(t, root, "pages", id); !strings.Contains(got, "excl-made") {
			t.Fatalf("stored %q", got)
		}
	})

	t.Run("touch of a new record fails and leaves no name", func(t *testing.T) {
		id := newID(t)
		runFails(t, "", "touch", filepath.Join(pages, id+".jsonc"))
		// The kernel sends RELEASE after close(2) returned.
		eventually(t, "the name of a never-stored record is gone", func() bool {
			_, err := os.Stat(filepath.Join(pages, id+".jsonc"))
			return errors.Is(err, fs.ErrNotExist)
		})
		if strings.Contains(runOK(t, "", "ls", pages), id) {
			t.Errorf("phantom %s listed", id)
		}
		if got := storedContent(t, root, "pages", id); got != "<missing>" {
			t.Errorf("stored %q", got)
		}
	})

	// rm while a writer is open: the writer's close must not resurrect it.
	t.Run("rm while open for writing removes the record for good", func(t *testing.T) {
		id := ids[1]
		path := filepath.Join(pages, id+".jsonc")
		f := openFile(t, path, os.O_WRONLY|os.O_TRUNC)
		writeAt(t, f, record(id, `{"slug":"resurrected"}`), 0)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Errorf("close after rm: %v", err)
		}
		if got := storedContent(t, root, "pages", id); got != "<missing>" {
			t.Fatalf("record came back: %q", got)
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("stat after rm: %v", err)
		}
		verify(t, root, "pages")
	})

	// open(O_TRUNC) by one process must not empty another's buffer.
	t.Run("O_TRUNC truncates only its own descriptor", func(t *testing.T) {
		id := ids[2]
		path := filepath.Join(pages, id+".jsonc")
		before := storedContent(t, root, "pages", id)
		f := openFile(t, path, os.O_RDWR)
		edited := record(id, `{"slug":"page-0002","kind":"edited-before-trunc"}`)
		writeAt(t, f, edited, 0)
		if err := f.Truncate(int64(len(edited))); err != nil {
			t.Fatal(err)
		}
		g := openFile(t, path, os.O_WRONLY|os.O_TRUNC)
		g.Close() // rejected (empty), stored record untouched
		if noOpen {
			// Without OPEN the descriptors of one file share its content,
			// as on a local file system: O_TRUNC empties it for both, and
			// the first writer's close is refused too (fusefs/nodewrites.go).
			if err := f.Close(); !errors.Is(err, syscall.EINVAL) {
				t.Fatalf("close of the first writer after another's O_TRUNC: %v, want EINVAL (empty)", err)
			}
			edited = before // the stored record untouched
		} else if err := f.Close(); err != nil {
			t.Fatalf("close of the first writer: %v", err)
		}
		if got := storedContent(t, root, "pages", id); got != edited {
			t.Fatalf("stored %q, want the first writer's content", got)
		}
		verify(t, root, "pages")
	})

	// An indexed value the index cannot hold is refused before the write.
	t.Run("1e999 in an indexed field is refused, record intact", func(t *testing.T) {
		id := ids[3]
		before := storedContent(t, root, "pages", id)
		path := filepath.Join(pages, id+".jsonc")
		err := os.WriteFile(path, []byte(record(id, `{"slug":"page-0003","score":1e999}`)), 0o644)
		if !errors.Is(err, syscall.EINVAL) {
			t.Errorf("write of score 1e999 = %v, want EINVAL", err)
		}
		if got := storedContent(t, root, "pages", id); got != before {
			t.Fatalf("record changed to %q", got)
		}
		verify(t, root, "pages")
	})

	// A process still inside a removed collection cannot recreate it.
	t.Run("rmdir then a stale directory handle", func(t *testing.T) {
		coll := m.path("scratchpad")
		if err := os.Mkdir(coll, 0o755); err != nil {
			t.Fatal(err)
		}
		dirfd, err := unix.Open(coll, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(dirfd)
		if err := syscall.Rmdir(coll); err != nil {
			t.Fatalf("rmdir empty collection: %v", err)
		}
		id := newID(t)
		fd, err := unix.Openat(dirfd, id+".jsonc", unix.O_CREAT|unix.O_WRONLY, 0o644)
		if err == nil {
			unix.Close(fd)
			t.Errorf("create inside a removed collection succeeded")
		}
		if _, err := os.Stat(filepath.Join(root, "scratchpad")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("removed collection recreated on disk: %v", err)
		}
	})
}

// --max-buffer-mb bounds uncommitted writes: past it, writes fail with
// ENOSPC, and closing gives the memory back.
func TestWriteBufferBudget(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 30)
	m := startMount(t, root, "--max-buffer-mb", "1")
	id := newID(t)
	f := openFile(t, m.path("pages", id+".jsonc"), os.O_CREATE|os.O_WRONLY)
	_, err := f.Write(make([]byte, 2<<20))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("2 MiB write with a 1 MiB budget = %v, want ENOSPC", err)
	}
	f.Close()
	// Committing needs about 5x the record in memory: 100 KiB fits in 1 MiB.
	content := record(id, fmt.Sprintf(`{"pad":"%s"}`, strings.Repeat("x", 100<<10)))
	if err := os.WriteFile(m.path("pages", id+".jsonc"), []byte(content), 0o644); err != nil {
		t.Fatalf("write within the budget after the first file was closed: %v", err)
	}
	if got := storedContent(t, root, "pages", id); got != content {
		t.Errorf("stored %d bytes, want %d", len(got), len(content))
	}
}

// A read-only mount leaves ROOT byte-identical: no sweep of a dead
// writer's temp file, no marker removed, no .storh/writers created.
func TestReadOnlyMountChangesNothing(t *testing.T) {
	requireFuse(t, "ls", "cat", "find")
	root := demoRoot(t, 30)
	dead := "2147483646.0123abcd"
	pagesDir := filepath.Join(root, "pages")
	if err := os.MkdirAll(filepath.Join(pagesDir, ".storh", "writers"), 0o777); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(pagesDir, ".storh", "writers", dead), "")
	ids := storedIDs(t, root, "pages")
	tmp := filepath.Join(pagesDir, "data", ids[0][24:26], "."+dead+".1.tmp")
	writeFile(t, tmp, "half a record")
	// notes without .storh/writers: opening it for writing would create it.
	if err := os.RemoveAll(filepath.Join(root, "notes", ".storh", "writers")); err != nil {
		t.Fatal(err)
	}
	before := treetest.Snapshot(t, root)

	m := startMount(t, root, "--read-only")
	for _, c := range []string{"pages", "notes"} {
		runOK(t, "", "ls", "-la", m.path(c))
		runOK(t, "", "find", m.path(c), "-type", "f", "-exec", "cat", "{}", "+")
	}
	if err := os.WriteFile(m.path("pages", ids[0]+".jsonc"), []byte("x"), 0o644); !errors.Is(err, syscall.EROFS) {
		t.Errorf("write on a read-only mount = %v, want EROFS", err)
	}
	if err := m.stop(); err != nil {
		t.Fatalf("unmount: %v", err)
	}
	treetest.AssertSame(t, "read-only mount", before, treetest.Snapshot(t, root))
}
