package fsutil

import (
	"strings"
)

// IndexesDir is C/.storh/indexes, where every index file and its temps live.
func IndexesDir(collectionDir string) string {
	return collectionDir + "/.storh/indexes"
}

// SweepIndexTemps deletes the orphaned temp files below C/.storh/indexes
// and returns their paths. The caller MUST hold the collection write lock
// (C/.storh/write.lock).
//
// Why the lock decides liveness here: storh writes index files (manifest,
// entries, range files, rebuild chunks) only under that lock, PHP and
// storhfs alike (docs/format/docstore.md §6; PHP's DocStoreIndexManager runs every write_atomic
// and append inside with_write_lock), and a writer renames or unlinks its
// temp before it unlocks. So while we hold the lock, a temp there belongs
// to a writer that died mid-write, whatever its age. That closes the gap of
// SweepTemps, which must spare the PID-less ".<basename>.<hex12>.tmp" names
// for 60 s because it runs without the lock, and so kept the young temps of
// a writer killed just before the next open for good.
//
// The rule per file whose basename starts with "." and ends with ".tmp":
//   - ^\.(\d+)\.[0-9a-f]+\.\d+\.tmp$ (a PID-owned temp, docs/format/docstore.md §5.4 allows
//     them for index files): kept while that pid is alive, as in SweepTemps;
//   - any other such name: deleted.
//
// Symlinks are neither followed nor deleted; other files are never touched;
// errors are ignored as in SweepTemps.
func SweepIndexTemps(collectionDir string) (removed []string) {
	stack := []string{IndexesDir(collectionDir)}
	for len(stack) > 0 {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		entries, err := ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			path := dir + "/" + name
			if e.IsDir() { // from lstat: a symlink is never IsDir
				stack = append(stack, path)
				continue
			}
			if !e.Type().IsRegular() || !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".tmp") {
				continue
			}
			if pid, ok := pidOfTemp(name); ok && PIDAlive(pid) {
				continue
			}
			if Unlink(path) == nil {
				removed = append(removed, path)
			}
		}
	}
	return removed
}
