package docindex

import (
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/storhfs/storhfs/core/fsutil"
)

// rebuildWriters bounds the files a rebuild writes at once. Each write ends
// in its own fsync; concurrent fsyncs overlap their device writes and cache
// flushes (and ext4 with a journal commits them in one transaction), while
// the bound keeps the open fds, threads and encoded buffers few.
const rebuildWriters = 32

// syncWriter writes a rebuild's files concurrently. Per file it does what
// fsutil.WriteAtomic (docs/format/docstore.md §4.2) does, except the directory fsync:
//
//   - every file is written to its own temp, fsynced, closed and renamed
//     into place (same temp names, modes and error texts);
//   - the parent directory is NOT fsynced after each rename; syncDirs
//     fsyncs every directory that received a rename, and every directory
//     the rebuild created or emptied (markDir), once, after all renames.
//
// Intentional difference from PHP, which fsyncs the directory after every
// file: what is durable when Rebuild returns is the same (every file's data
// and every directory entry), only the intermediate states a crash during
// the rebuild can leave differ, and those are incomplete either way
// (entries/ was deleted first; verify() reports it, reindex() redoes it).
type syncWriter struct {
	g errgroup.Group // the writes in flight, at most limit; they never return an error

	mu     sync.Mutex
	dirs   map[string]bool // directories to fsync at the end
	seq    int             // submission counter
	err    error           // error of the earliest failed submission
	errSeq int
}

func newSyncWriter(limit int) *syncWriter {
	w := &syncWriter{dirs: map[string]bool{}}
	w.g.SetLimit(limit)
	return w
}

// write replaces path with the bytes produce returns, in the background.
// Writes in flight must have different paths (the last rename would win).
// After a failure later submissions are skipped; wait reports the failure
// of the earliest submission that failed (not the first to fail in time).
func (w *syncWriter) write(path string, produce func() ([]byte, error)) {
	w.mu.Lock()
	seq := w.seq
	w.seq++
	failed := w.err != nil
	w.dirs[dirOf(path)] = true
	w.mu.Unlock()
	if failed {
		return
	}
	w.g.Go(func() error { // waits for a free slot
		content, err := produce()
		if err == nil {
			err = fsutil.WriteAtomicNoDirSync(path, content)
		}
		if err != nil {
			w.fail(seq, err)
		}
		return nil
	})
}

func (w *syncWriter) fail(seq int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil || seq < w.errSeq {
		w.err, w.errSeq = err, seq
	}
}

// markDir adds a directory (created by the rebuild, or changed by an
// unlink) to the set syncDirs fsyncs.
func (w *syncWriter) markDir(dir string) {
	w.mu.Lock()
	w.dirs[dir] = true
	w.mu.Unlock()
}

// wait blocks until every submitted write has finished and returns the
// earliest failure.
func (w *syncWriter) wait() error {
	_ = w.g.Wait() // the errors are in w.err
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// syncDirs waits for all writes, then fsyncs every marked directory once,
// concurrently. Directory fsync errors are ignored, as fsutil.WriteAtomic
// and PHP ignore them.
func (w *syncWriter) syncDirs() error {
	if err := w.wait(); err != nil {
		return err
	}
	w.mu.Lock()
	dirs := make([]string, 0, len(w.dirs))
	for d := range w.dirs {
		dirs = append(dirs, d)
	}
	w.mu.Unlock()
	sort.Strings(dirs)
	for _, d := range dirs {
		w.g.Go(func() error {
			_ = fsutil.FsyncDir(d)
			return nil
		})
	}
	return w.g.Wait()
}

// dirOf is the part of a slash path before its last slash. Index paths are
// built by concatenation (paths), so the last slash separates the file.
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}
