package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestLockExcludesOtherDescriptor(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".storh", "write.lock")
	a, err := OpenLock(path, os.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenLock(path, os.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	if err := a.Lock(); err != nil {
		t.Fatal(err)
	}
	// While a holds it, b's descriptor cannot take it: a non-blocking
	// attempt fails at once (no waiting to see whether Lock returns).
	if err := unix.Flock(int(b.f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != unix.EWOULDBLOCK {
		t.Fatalf("non-blocking flock on a second descriptor while held: %v, want EWOULDBLOCK", err)
	}
	var bHolds atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := b.Lock(); err != nil {
			t.Error(err)
			return
		}
		bHolds.Store(true)
		if err := b.Unlock(); err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
		t.Fatal("second descriptor took the lock while the first held it")
	default:
	}
	if err := a.Unlock(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("second descriptor never got the lock")
	}
	if !bHolds.Load() {
		t.Fatal("second lock did not run")
	}
}

// UnlockInto reports a failed release into the deferring function's error
// and keeps an error already there.
func TestUnlockIntoJoinsTheFailure(t *testing.T) {
	l, err := OpenLock(filepath.Join(t.TempDir(), "write.lock"), os.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var none error
	l.UnlockInto(&none) // not locked: Unlock fails
	if none == nil {
		t.Fatal("UnlockInto dropped the unlock failure")
	}
	first := errors.New("the operation failed")
	err = first
	l.UnlockInto(&err)
	if !errors.Is(err, first) || err == first {
		t.Fatalf("UnlockInto = %v, want both failures", err)
	}
	if err := l.Lock(); err != nil {
		t.Fatal(err)
	}
	var ok error
	l.UnlockInto(&ok)
	if ok != nil {
		t.Fatalf("UnlockInto after a good release = %v", ok)
	}
}

func TestLockMutualExclusionCounter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "collection.lock")
	const workers, rounds = 4, 50
	var inside, maxInside atomic.Int32
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		l, err := OpenLock(path, os.O_WRONLY)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				if err := l.Lock(); err != nil {
					t.Error(err)
					return
				}
				n := inside.Add(1)
				if n > maxInside.Load() {
					maxInside.Store(n)
				}
				inside.Add(-1)
				if err := l.Unlock(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if maxInside.Load() != 1 {
		t.Fatalf("%d holders at once", maxInside.Load())
	}
}

func TestLockReentrantAndCrossProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q", "queue.lock")
	l, err := OpenLock(path, os.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if code, _ := runHelper(t, "trylock", path); code != 0 {
		t.Fatalf("unlocked file: helper exit %d, want 0", code)
	}
	for i := 0; i < 2; i++ {
		if err := l.Lock(); err != nil {
			t.Fatal(err)
		}
	}
	if code, _ := runHelper(t, "trylock", path); code != 3 {
		t.Fatalf("held (depth 2): helper exit %d, want 3", code)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if !l.Held() {
		t.Fatal("depth 1 must still hold")
	}
	if code, _ := runHelper(t, "trylock", path); code != 3 {
		t.Fatalf("held (depth 1): helper exit %d, want 3", code)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if code, _ := runHelper(t, "trylock", path); code != 0 {
		t.Fatalf("released: helper exit %d, want 0", code)
	}
	if err := l.Unlock(); err == nil {
		t.Fatal("unlock below depth 0 must fail")
	}
}

func TestLockFileNeverTruncatedOrReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "write.lock")
	if err := os.WriteFile(path, []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	for _, flag := range []int{os.O_RDWR, os.O_WRONLY, os.O_RDWR | os.O_TRUNC} {
		l, err := OpenLock(path, flag)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Lock(); err != nil {
			t.Fatal(err)
		}
		l.Unlock()
		l.Close()
	}
	after, _ := os.Stat(path)
	if after.Size() != 1 || !os.SameFile(before, after) {
		t.Fatal("lock file was truncated or replaced")
	}
	l, _ := OpenLock(path, os.O_RDWR)
	l.Close()
	if err := l.Lock(); err == nil {
		t.Fatal("Lock after Close must fail")
	}
}

func TestOpenLockErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o666)
	if _, err := OpenLock(filepath.Join(file, ".storh", "write.lock"), os.O_RDWR); err == nil {
		t.Fatal("parent is a file: want error")
	}
}
