package fsutil

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// Lock is an exclusive BSD flock(2) on a lock file that is never written,
// truncated or deleted (docstore write.lock, seglog collection.lock, queue
// queue.lock). It is re-entrant per *Lock through a depth counter, like the
// PHP instances: nested Lock calls only count. It is NOT a goroutine mutex:
// the depth counter cannot tell goroutines apart, so callers that use one
// *Lock from several goroutines must serialise them themselves. Two *Lock
// values (two descriptors) exclude each other, in one process or across
// processes.
type Lock struct {
	path string

	mu    sync.Mutex // guards f and depth
	f     *os.File
	depth int
}

// OpenLock creates the parent directory (0777) and opens path with
// flag|O_CREATE, mode 0666, never truncating. flag is os.O_RDWR (PHP "c+b":
// docstore, queue) or os.O_WRONLY (PHP "c": seglog).
func OpenLock(path string, flag int) (*Lock, error) {
	dirfd, err := openDirCreate(parentDir(path))
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	defer unix.Close(dirfd)
	fd, err := openNoSymlinks(dirfd, baseName(path), flag&^(os.O_TRUNC|os.O_APPEND)|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, pathError("open", path, err))
	}
	return &Lock{path: path, f: os.NewFile(uintptr(fd), path)}, nil
}

// Path is the lock file's path.
func (l *Lock) Path() string { return l.path }

// Lock takes LOCK_EX (blocking) when the depth goes from 0 to 1.
func (l *Lock) Lock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("lock %s: %w", l.path, os.ErrClosed)
	}
	if l.depth == 0 {
		if err := flockRetry(int(l.f.Fd()), unix.LOCK_EX); err != nil {
			return fmt.Errorf("lock %s: %w", l.path, err)
		}
	}
	l.depth++
	return nil
}

// Unlock releases the flock (LOCK_UN) when the depth returns to 0.
func (l *Lock) Unlock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.depth == 0 {
		return fmt.Errorf("unlock %s: not locked", l.path)
	}
	l.depth--
	if l.depth > 0 || l.f == nil {
		return nil
	}
	if err := flockRetry(int(l.f.Fd()), unix.LOCK_UN); err != nil {
		return fmt.Errorf("unlock %s: %w", l.path, err)
	}
	return nil
}

// UnlockInto is Unlock for a defer: a failure is joined into *err. A
// flock that failed to release may still be held and would block every
// other writer, so it must not pass unseen.
func (l *Lock) UnlockInto(err *error) {
	if uerr := l.Unlock(); uerr != nil {
		*err = errors.Join(*err, uerr)
	}
}

// Held reports whether this *Lock currently holds the flock (depth > 0).
func (l *Lock) Held() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.depth > 0
}

// Close closes the descriptor, which drops a still-held flock.
func (l *Lock) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	l.depth = 0
	return err
}

func flockRetry(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
