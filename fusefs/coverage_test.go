package fusefs

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestWatcherLosesCoverage: a collection is cached long only while every
// directory of it is watched; a bucket that appears and cannot be watched
// ends that, drops the kernel's cache of its records, and is logged.
func TestWatcherLosesCoverage(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"pages/data/00", "notes/data/00"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var logBuf bytes.Buffer
	var logMu sync.Mutex
	logged := func() string { logMu.Lock(); defer logMu.Unlock(); return logBuf.String() }
	m := newMountState(testCatalog(root), false, log.New(lockedLog{&logMu, &logBuf}, "", 0), 0)
	m.coverage.timeout = time.Hour
	sent := make(chan struct{}, 16)
	m.runNotify = func(func()) { sent <- struct{}{} } // no kernel here
	w, err := newWatcher(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.addWatch = func(dir string) error {
		if strings.HasSuffix(dir, "pages/data/01") {
			return syscall.ENOSPC // fs.inotify.max_user_watches reached
		}
		return w.w.Add(dir)
	}
	w.start()
	defer w.close()
	for _, c := range []string{"pages", "notes"} {
		if got := m.coverage.cacheTimeout(c); got != time.Hour {
			t.Fatalf("%s cached for %v after the watcher started, want 1h", c, got)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "pages/data/01"), 0o755); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for m.coverage.cacheTimeout("pages") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("pages still cached long after a bucket could not be watched")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case <-sent:
	case <-time.After(5 * time.Second):
		t.Fatal("no invalidation was sent for the collection")
	}
	if !strings.Contains(logged(), "pages: bucket 01 could not be watched") {
		t.Errorf("the loss was not logged: %q", logged())
	}
	if got := m.coverage.cacheTimeout("notes"); got != time.Hour {
		t.Errorf("notes cached for %v, want 1h: only pages lost a watch", got)
	}
}

type lockedLog struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (l lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}
