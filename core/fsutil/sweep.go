package fsutil

import (
	"regexp"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// tempGraceSeconds protects temp files without a PID in their name (docs/format/docstore.md §5.4).
const tempGraceSeconds = 60

// SweepOnOpen is storh's open-time sweep (docs/format/docstore.md §5.3), run without the lock:
//   - no C/.storh/writers/: sweep all of C, then create writers/;
//   - otherwise, if any entry of writers/ is stale (name not "<digits>.…"
//     or its pid not alive), sweep all of C and unlink every stale entry
//     (errors ignored, so a stale subdirectory stays and triggers the sweep
//     again on every open);
//   - no stale entry: nothing is done.
//
// Entries are judged by name only (a subdirectory named "<live pid>.x" is
// not stale). now is the clock for the 60-second grace of SweepTemps.
func SweepOnOpen(collectionDir string, now time.Time) error {
	_, err := DetectHosts.SweepOnOpenStale(collectionDir, now)
	return err
}

// SweepOnOpenStale is SweepOnOpen that also returns the names of the stale
// writer markers it found (nil when none): each may be a writer that died
// mid-write and left index drift behind. Pids are judged as h says.
func (h Hosts) SweepOnOpenStale(collectionDir string, now time.Time) (stale []string, err error) {
	h = h.For(collectionDir)
	writers := WritersDir(collectionDir)
	if fi, err := Stat(writers); err != nil || !fi.IsDir() {
		h.SweepTemps(collectionDir, now)
		return nil, EnsureDir(writers)
	}
	entries, err := ReadDir(writers)
	if err != nil {
		return nil, nil // unreadable: PHP's scandir fails and finds no stale entry
	}
	for _, e := range entries {
		if h.markerStale(e.Name()) {
			stale = append(stale, e.Name())
		}
	}
	if len(stale) == 0 {
		return nil, nil
	}
	h.SweepTemps(collectionDir, now)
	for _, name := range stale {
		_ = atParent("remove", writers+"/"+name, func(dirfd int, name string) error {
			return unix.Unlinkat(dirfd, name, 0) // unlink(2): a directory is never removed
		})
	}
	return stale, nil
}

// markerStale: a live marker's name starts with "<digits>." and that pid
// is alive (h.pidAlive).
func (h Hosts) markerStale(name string) bool {
	dot := strings.IndexByte(name, '.')
	if dot <= 0 {
		return true
	}
	pid, ok := parsePID(name[:dot])
	return !ok || !h.pidAlive(pid)
}

// SweepTemps walks C recursively (no symlink is followed: a symlinked C
// or subdirectory is not swept, a symlink named like a temp is left alone,
// where PHP would unlink it) and applies docs/format/docstore.md §5.4 to every file whose basename starts with "." and
// ends with ".tmp":
//   - ^\.(\d+)\.[0-9a-f]+\.\d+\.tmp$ with a live pid: kept;
//   - that pattern with a dead pid: deleted whatever its age;
//   - any other such name: kept while now - mtime < 60 (integer seconds),
//     deleted otherwise.
//
// Everything else is never touched; errors (unreadable dirs, failed
// unlinks) are ignored like PHP does. With ManyHosts a pid-named temp
// whose pid is not provably dead is kept while younger than
// sharedTempGrace (Hosts).
func (h Hosts) SweepTemps(collectionDir string, now time.Time) {
	h = h.For(collectionDir)
	nowSec := now.Unix()
	walkTemps(collectionDir, func(path, name string) {
		fi, err := Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		if pid, ok := pidOfTemp(name); ok {
			switch {
			case !h.pidAlive(pid):
				_ = Remove(path)
			case h == ManyHosts && !PIDAlive(pid) && now.Sub(fi.ModTime()) >= sharedTempGrace:
				_ = Remove(path)
			}
			return
		}
		if nowSec-fi.ModTime().Unix() >= tempGraceSeconds {
			_ = Remove(path)
		}
	})
}

// walkTemps calls fn for every entry below dir whose name starts with "."
// and ends with ".tmp" and that is not a directory, descending into
// subdirectories but never through a symlink (DirEntry types come from
// lstat: a symlink is never IsDir). Unreadable directories are skipped.
func walkTemps(dir string, fn func(path, name string)) {
	stack := []string{dir}
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
			switch {
			case e.IsDir():
				stack = append(stack, path)
			case strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp"):
				fn(path, name)
			}
		}
	}
}

// pidTempName is the PID-owned temp name of docs/format/docstore.md §5.4
// (PHP's \d is an ASCII digit).
var pidTempName = regexp.MustCompile(`^\.([0-9]+)\.[0-9a-f]+\.[0-9]+\.tmp$`)

// pidOfTemp matches pidTempName and returns the parsed pid.
func pidOfTemp(name string) (int64, bool) {
	m := pidTempName.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	return parsePID(m[1])
}
