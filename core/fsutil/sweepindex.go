package fsutil

import "time"

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
// errors are ignored as in SweepTemps. With ManyHosts a PID-owned temp
// whose pid is not alive here is kept while younger than sharedTempGrace,
// as in SweepTemps.
func (h Hosts) SweepIndexTemps(collectionDir string) (removed []string) {
	h = h.For(collectionDir)
	now := time.Now()
	walkTemps(IndexesDir(collectionDir), func(path, name string) {
		fi, err := Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		if pid, ok := pidOfTemp(name); ok && h.pidAlive(pid) &&
			(PIDAlive(pid) || now.Sub(fi.ModTime()) < sharedTempGrace) {
			return
		}
		if Unlink(path) == nil {
			removed = append(removed, path)
		}
	})
	return removed
}
