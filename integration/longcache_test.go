package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// awaitVisible polls cond (up to 5 s) and returns how long it took.
func awaitVisible(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("after 5s: %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return time.Since(start)
}

// replaceLikePHP stores content as the record file of id the way storh
// does (a temp file renamed over it), with the given mtime: a same-size
// rewrite within one mtime tick leaves size and mtime as the kernel last
// saw them, so only the watcher's invalidation can show it.
func replaceLikePHP(t *testing.T, root, collection, id, content string, mtime time.Time) {
	t.Helper()
	final := storedPath(root, collection, id)
	temp := filepath.Join(filepath.Dir(final), "."+id+".tmp")
	mustOK(t, os.WriteFile(temp, []byte(content), 0o644))
	mustOK(t, os.Chtimes(temp, mtime, mtime))
	mustOK(t, os.Rename(temp, final))
}

// TestOutsideChangesBeatLongCaches: the kernel now caches records for an
// hour where the watcher sees every change, and outside changes (a
// PHP-style put of a new record over a cached negative entry, a same-size
// rewrite within one mtime tick, a delete) still show through the mount,
// once the watcher has processed them, although the kernel holds the old
// entry, attributes and pages. The latency is logged.
func TestOutsideChangesBeatLongCaches(t *testing.T) {
	forEachMode(t, func(t *testing.T, flags []string) {
		requireFuse(t, "cat", "stat")
		root := demoRoot(t, 5)
		m := startMount(t, root, flags...)
		var report []string
		note := func(what string, d time.Duration) {
			report = append(report, fmt.Sprintf("%s: %v", what, d.Round(100*time.Microsecond)))
		}

		id := newID(t)
		name := m.path("pages", id+".jsonc")
		if _, err := run("", "stat", name); err == nil {
			t.Fatalf("%s exists before it was put", id)
		}
		v1 := fmt.Sprintf(`{"id":"%s","data":{"v":"aaaa"}}`+"\n", id)
		sh(t, "", fmt.Sprintf("printf '%%s' '%s' | %s put %s pages %s", strings.TrimSpace(v1), storhfsBin, root, id))
		note("put over a cached negative entry", awaitVisible(t, "the new record shows", func() bool {
			_, err := run("", "stat", name)
			return err == nil
		}))
		stored := string(readFile(t, storedPath(root, "pages", id)))
		awaitVisible(t, "the new record's content shows", func() bool { out, _ := run("", "cat", name); return out == stored })
		fi, err := os.Stat(storedPath(root, "pages", id))
		mustOK(t, err)
		runOK(t, "", "cat", name) // the kernel holds its pages, size and mtime
		rewritten := strings.Replace(stored, "aaaa", "bbbb", 1)
		replaceLikePHP(t, root, "pages", id, rewritten, fi.ModTime())
		note("same-size rewrite, same mtime", awaitVisible(t, "the rewrite shows", func() bool {
			out, _ := run("", "cat", name)
			return out == rewritten
		}))
		runOK(t, "", storhfsBin, "delete", root, "pages", id)
		note("delete", awaitVisible(t, "the delete shows", func() bool {
			_, err := os.Stat(name)
			return os.IsNotExist(err)
		}))
		t.Logf("visible through the mount after (change done to visible):\n  %s", strings.Join(report, "\n  "))
	})
}

// TestWatchOverflowDropsCaches: when the kernel's inotify queue overflows,
// the changes it dropped cannot be told apart, so the mount drops every
// entry, attribute and page the kernel caches, and logs it. The mount is
// stopped (SIGSTOP) while a burst of events overflows its queue (made
// small for this mount alone) and a record is then rewritten with the
// same size and mtime: its event is among the lost.
func TestWatchOverflowDropsCaches(t *testing.T) {
	requireFuse(t, "cat")
	const limitFile = "/proc/sys/fs/inotify/max_queued_events"
	old, err := os.ReadFile(limitFile)
	if err != nil || os.Geteuid() != 0 {
		t.Skipf("needs root and %s (%v)", limitFile, err)
	}
	restore := func() { os.WriteFile(limitFile, old, 0o644) }
	t.Cleanup(restore)
	root := demoRoot(t, 5)
	// The limit applies to inotify instances made while it is set: the
	// mount's watcher only.
	mustOK(t, os.WriteFile(limitFile, []byte("16\n"), 0o644))
	m := startMount(t, root)
	restore()

	id := storedIDs(t, root, "pages")[0]
	name, final := m.path("pages", id+".jsonc"), storedPath(root, "pages", id)
	stored := string(readFile(t, final))
	if got := runOK(t, "", "cat", name); got != stored {
		t.Fatalf("cat = %q, want %q", got, stored)
	}
	fi, err := os.Stat(final)
	mustOK(t, err)

	pid := m.cmd.Process.Pid
	mustOK(t, syscall.Kill(pid, syscall.SIGSTOP))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	bucket := filepath.Dir(final)
	for i := range 40 {
		junk := filepath.Join(bucket, "burst-"+strconv.Itoa(i)+".tmp")
		mustOK(t, os.WriteFile(junk, []byte("x"), 0o644))
		mustOK(t, os.Remove(junk))
	}
	// One digit changed: same size.
	i := strings.LastIndexAny(stored, "0123456789")
	if i < 0 {
		t.Fatalf("no digit to change in %q", stored)
	}
	digit := byte('0')
	if stored[i] == '0' {
		digit = '1'
	}
	rewritten := stored[:i] + string(digit) + stored[i+1:]
	replaceLikePHP(t, root, "pages", id, rewritten, fi.ModTime())
	mustOK(t, syscall.Kill(pid, syscall.SIGCONT))

	eventually(t, "the rewrite shows after the overflow", func() bool {
		out, _ := run("", "cat", name)
		return out == rewritten
	})
	// The watcher logs the overflow when it reads it, which may be after
	// the rewrite shows (a read-write mount reads records at every open).
	eventually(t, "the overflow logged", func() bool {
		return strings.Contains(m.log.String(), "overflowed")
	})
}
