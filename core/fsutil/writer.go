package fsutil

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Writer is one store instance's writing identity "<pid>.<hex8>" (docs/format/docstore.md §4.1,
// §5.1-5.2): the name of its writer marker C/.storh/writers/<pid>.<hex8> and
// the prefix of its record temp files .<pid>.<hex8>.<n>.tmp. Safe for
// concurrent use.
type Writer struct {
	collectionDir string
	pid           int
	name          string
	tempPrefix    string // name, or with ManyHosts "p<hex16>" (Hosts)

	tempSeq atomic.Uint64 // last temp number handed out; temps start at 1

	mu         sync.Mutex
	registered bool

	// SyncDir fsyncs the directory a record was renamed into (nil:
	// fsync(2)); tests inject failures here. Set before first use.
	SyncDir func(fd int) error
}

func (w *Writer) syncDir(fd int) error {
	if w.SyncDir != nil {
		return w.SyncDir(fd)
	}
	return unix.Fsync(fd)
}

// NewWriter returns a fresh identity (real OS pid, 8 random lowercase hex
// digits) for the collection directory C.
// Its temp names follow NewWriterFor with DetectHosts.
func NewWriter(collectionDir string) *Writer {
	return NewWriterFor(collectionDir, DetectHosts)
}

// NewWriterFor is NewWriter whose temp files, where h resolves to
// ManyHosts, are named ".p<hex16>.<n>.tmp" (no pid: a sweep on another
// host, which would judge our pid dead, keeps them for 60 s). The marker
// keeps the "<pid>.<hex8>" name, which this host's writers judge right.
func NewWriterFor(collectionDir string, h Hosts) *Writer {
	pid := os.Getpid()
	w := &Writer{
		collectionDir: collectionDir,
		pid:           pid,
		name:          strconv.Itoa(pid) + "." + randomHex(4),
	}
	w.tempPrefix = w.name
	if h.For(collectionDir) == ManyHosts {
		w.tempPrefix = "p" + randomHex(8)
	}
	return w
}

// Name is "<pid>.<hex8>".
func (w *Writer) Name() string { return w.name }

// MarkerPath is C/.storh/writers/<pid>.<hex8>.
func (w *Writer) MarkerPath() string {
	return WritersDir(w.collectionDir) + "/" + w.name
}

// WritersDir is C/.storh/writers.
func WritersDir(collectionDir string) string {
	return collectionDir + "/.storh/writers"
}

// Register creates the empty marker (and its directory) the first time it
// is called. Later calls check that the marker is still there and recreate
// it if it is gone: PHP running as another user sees our pid as dead
// (kill(2) fails with EPERM) and deletes the marker on its open-time sweep,
// after which our temp files would be swept as orphans. Call it under the
// collection lock, before the first temp file.
func (w *Writer) Register() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	marker := w.MarkerPath()
	if w.registered {
		if _, err := Stat(marker); err == nil {
			return nil
		}
	}
	dirfd, err := openDirCreate(parentDir(marker))
	if err != nil {
		return newError("Could not register storage writer marker: "+marker, errors.Unwrap(err))
	}
	defer unix.Close(dirfd)
	fd, err := openNoSymlinks(dirfd, w.name, unix.O_WRONLY|unix.O_CREAT, 0o666)
	if err != nil {
		return newError("Could not register storage writer marker: "+marker, pathError("open", marker, err))
	}
	if err := unix.Close(fd); err != nil {
		return newError("Could not register storage writer marker: "+marker, err)
	}
	w.registered = true
	return nil
}

// MarkerLive reports whether a writer marker name ("<pid>.<hex8>") belongs
// to a live process (docs/format/docstore.md §5.5, with EPERM counted alive
// as in PIDAlive), pids judged as h says (dir resolves DetectHosts): with
// ManyHosts every well-formed marker counts as live.
func (h Hosts) MarkerLive(dir, name string) bool { return !h.For(dir).markerStale(name) }

// Registered reports whether Register succeeded and Unregister has not run.
func (w *Writer) Registered() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.registered
}

// Unregister removes the marker (errors ignored) if this process registered
// it; a forked child with another pid leaves its parent's marker alone.
func (w *Writer) Unregister() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.registered || os.Getpid() != w.pid {
		return
	}
	_ = Remove(w.MarkerPath())
	w.registered = false
}

// TempPath returns dir/.<pid>.<hex8>.<n>.tmp with n = 1, 2, ... per Writer
// (dir/.p<hex16>.<n>.tmp for a ManyHosts writer: NewWriterFor).
func (w *Writer) TempPath(dir string) string {
	n := w.tempSeq.Add(1)
	return dir + "/." + w.tempPrefix + "." + strconv.FormatUint(n, 10) + ".tmp"
}

// randomHex returns 2*n lowercase hex digits from crypto/rand.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux (Go >= 1.24 it panics instead of erroring)
	return hex.EncodeToString(b)
}
