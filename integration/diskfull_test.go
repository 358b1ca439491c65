package integration

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// smallFS mounts a tmpfs of size bytes for the test; cleanup unmounts it
// after the storhfs mounts registered later are gone.
func smallFS(t *testing.T, size int) string {
	t.Helper()
	requireRoot(t, "mounting a small tmpfs to fill")
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount tmpfs %s: %v\n%s", dir, err, out)
			exec.Command("umount", "-l", dir).Run()
		}
	})
	return dir
}

// storedFiles maps each record file of collection to its content.
func storedFiles(t *testing.T, root, collection string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, collection, "data", "*", "*.jsonc"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		out[f] = string(readFile(t, f))
	}
	return out
}

// writeRecordSteps writes content to path with write, fsync and close,
// returning the first failing step and its error.
func writeRecordSteps(path string, content []byte) (step string, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return "open", err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return "write", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "fsync", err
	}
	if err := f.Close(); err != nil {
		return "close", err
	}
	return "", nil
}

// deletedFilesOpen lists the unlinked files (spill files) pid holds open.
func deletedFilesOpen(t *testing.T, pid int) []string {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasSuffix(target, " (deleted)") {
			out = append(out, target)
		}
	}
	return out
}

// fillUp appends to path until the file system is full; it returns the
// error that stopped it (ENOSPC when full).
func fillUp(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	piece := make([]byte, 4<<10)
	for {
		if _, err := f.Write(piece); err != nil {
			return err
		}
	}
}

// Issue 17, disk full: with ROOT on a 16 MiB file system, writes through
// the mount fail with ENOSPC at write, fsync or close (never a false
// success), stored records stay byte for byte, no temp file stays in the
// buckets, and once space is freed writes work again.
func TestDiskFull(t *testing.T) {
	requireFuse(t, "ls")
	fsDir := smallFS(t, 16*mib)
	root := filepath.Join(fsDir, "root")
	runOK(t, "", storhfsBin, "demo", "--records", "20", root)
	filler := filepath.Join(fsDir, "filler")
	writeFile(t, filler, strings.Repeat("f", 2*mib))
	before := storedFiles(t, root, "pages")
	m := startMount(t, root)

	existing := storedIDs(t, root, "pages")[0]
	var full []string // how each write failed once the disk was full
	stored := map[string]string{}
	for i := 0; len(full) < 3 && i < 200; i++ {
		// Alternate records kept in memory (commit fails) and records
		// spilled to ROOT's file system (write fails).
		size := 300 << 10
		if i%2 == 1 {
			size = 3 * mib
		}
		id := newID(t)
		content := record(id, fmt.Sprintf(`{"pad":"%s"}`, strings.Repeat("p", size)))
		step, err := writeRecordSteps(m.path("pages", id+".jsonc"), []byte(content))
		switch {
		case err == nil:
			stored[id] = content
		case errors.Is(err, syscall.ENOSPC):
			full = append(full, step)
		default:
			t.Fatalf("write %d (%d bytes): %s: %v, want success or ENOSPC", i, len(content), step, err)
		}
	}
	if len(full) == 0 {
		t.Fatalf("no ENOSPC after filling the 16 MiB file system")
	}
	t.Logf("ENOSPC at: %v after %d stored records", full, len(stored))
	// Failed commits free their temp files, and closed writers their
	// spill files once the kernel releases them (after close returns), so
	// space comes back: fill it, then replace a record. That fails with
	// ENOSPC keeping the old bytes, or (space came back meanwhile)
	// succeeds storing the new ones; repeat until it failed.
	rest := filepath.Join(fsDir, "rest")
	existingPath := storedPath(root, "pages", existing)
	for attempt := 0; ; attempt++ {
		if attempt == 20 {
			t.Fatalf("replacing a record on a full file system succeeded %d times", attempt)
		}
		if err := fillUp(rest); !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("filling the rest of the file system: %v", err)
		}
		replacement := record(existing, fmt.Sprintf(`{"pad":"%s","attempt":%d}`, strings.Repeat("r", 200<<10), attempt))
		step, err := writeRecordSteps(m.path("pages", existing+".jsonc"), []byte(replacement))
		if err == nil {
			before[existingPath] = replacement
			continue
		}
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("replacing a record on a full disk: %s: %v, want ENOSPC", step, err)
		}
		t.Logf("replacing a record on the full disk: ENOSPC at %s (attempt %d)", step, attempt)
		break
	}

	for path, content := range before {
		if got := string(readFile(t, path)); got != content {
			t.Errorf("%s changed on the full disk", path)
		}
	}
	for id, content := range stored {
		if got := storedContent(t, root, "pages", id); got != content {
			t.Errorf("record %s acknowledged but stored %d bytes, want %d", id, len(got), len(content))
		}
	}
	if n := len(storedIDs(t, root, "pages")); n != len(before)+len(stored) {
		t.Errorf("%d records stored, want %d before + %d acknowledged", n, len(before), len(stored))
	}
	assertNoTempFiles(t, root, "pages")

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(rest); err != nil {
		t.Fatal(err)
	}
	id := newID(t)
	content := record(id, `{"after":"space was freed"}`)
	if step, err := writeRecordSteps(m.path("pages", id+".jsonc"), []byte(content)); err != nil {
		t.Fatalf("write after freeing space: %s: %v", step, err)
	}
	if got := storedContent(t, root, "pages", id); got != content {
		t.Errorf("after freeing space stored %q", got)
	}
	replacement := record(existing, `{"replaced":"after space was freed"}`)
	if step, err := writeRecordSteps(m.path("pages", existing+".jsonc"), []byte(replacement)); err != nil {
		t.Errorf("replacing a record after freeing space: %s: %v", step, err)
	}
	if got := string(readFile(t, existingPath)); got != replacement {
		t.Errorf("replaced after freeing space, stored %q", got)
	}
	verify(t, root, "pages")
}

// Issue 17: a 1 GB write into a record fails with EFBIG at the 64 MiB
// limit, stores nothing, and keeps the mount's peak memory within the
// default 512 MiB budget + 64 MiB.
func TestHugeWriteFailsWithEFBIG(t *testing.T) {
	requireFuse(t, "dd")
	root := demoRoot(t, 10)
	m := startPlainMount(t, root)
	id := newID(t)
	out, err := run("", "dd", "if=/dev/zero", "of="+m.path("pages", id+".jsonc"), "bs=1M", "count=1024")
	if err == nil || !strings.Contains(out, "File too large") {
		t.Errorf("dd of 1 GB into a record: %v, want EFBIG (File too large)\n%s", err, out)
	}
	// The limit is exactly 64 MiB, and the refused content is not stored.
	f, err := os.OpenFile(m.path("pages", id+".jsonc"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	piece := make([]byte, mib)
	written := 0
	for err == nil && written < 1024*mib {
		var n int
		n, err = f.Write(piece)
		written += n
	}
	if !errors.Is(err, syscall.EFBIG) || written != 64*mib {
		t.Errorf("writing 1 GB in 1 MiB pieces: %v after %d bytes, want EFBIG after 64 MiB", err, written)
	}
	if err := f.Close(); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("close after EFBIG: %v, want EINVAL (64 MiB of zeros is not a record)", err)
	}
	if _, err := os.Lstat(storedPath(root, "pages", id)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused 1 GB write left a record (%v)", err)
	}
	peak := memStatus(t, m.cmd.Process.Pid, "VmHWM")
	t.Logf("peak RSS %d MiB", peak>>20)
	if peak > (512+64)*mib {
		t.Errorf("peak RSS %d MiB, above the 512 MiB budget + 64 MiB", peak>>20)
	}
	assertNoTempFiles(t, root, "pages")
	if names := runOK(t, "", "ls", m.path("pages")); strings.Contains(names, id) {
		t.Errorf("the refused record is listed")
	}
}
