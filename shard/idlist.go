package shard

import (
	"errors"
	"io/fs"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"
)

// IDList is every record key of a collection, in Walk's order and
// selection, as read at one time, with the state of each directory it was
// read from. ListIDs given a former IDList re-reads only the directories
// whose state changed, so listing an unchanged collection again costs one
// stat per directory (data/ and its 256 buckets).
//
// An IDList is immutable once returned; IDs may be shared by readers.
type IDList struct {
	IDs  []string
	dirs map[string]dirState // every directory below data/ (data/ included), by path
}

// dirState is one directory as last read. Its keys are trusted again only
// when the directory's inode and mtime are unchanged and the mtime was
// already older than racyWindow when it was read: directory mtimes are
// coarse (a clock tick), so a change in the same tick as the read would
// otherwise go unseen.
//
// The ctime is compared too: tools that restore a directory's mtime
// (rsync -a, cp -a, tar x, touch -d) cannot restore its ctime.
type dirState struct {
	ino     uint64
	mtime   int64 // ns
	ctime   int64 // ns
	racy    bool
	ids     []string // sorted record keys directly in the directory
	subdirs []string
}

// racyWindow is how recent a directory's mtime or ctime may be and still be
// suspected of hiding a change made after the read in the same timestamp
// tick. Two seconds covers the coarsest local timestamps (FAT's 2 s).
const racyWindow = 2 * time.Second

// Len is the number of records listed.
func (l *IDList) Len() int {
	if l == nil {
		return 0
	}
	return len(l.IDs)
}

// ListIDs lists the record keys of collectionDir like WalkIDs. prev (nil
// for none) is a former result of the same collection; directories it
// read that are unchanged are reused without reading. changed reports
// whether the IDs differ from prev's (always true without prev). now is
// the current time, for the racy check.
func ListIDs(collectionDir string, prev *IDList, now time.Time) (list *IDList, changed bool, err error) {
	dataDir := DataDir(collectionDir)
	next := &IDList{dirs: map[string]dirState{}}
	reusedAll := prev != nil
	// Level by level (data/, then its buckets, ...), each level's
	// directories read concurrently: on a cold cache the 256 bucket reads
	// overlap their disk waits instead of queueing behind each other.
	level := []string{dataDir}
	for len(level) > 0 {
		states := readStates(level, prev, now)
		var below []string
		for i, r := range states {
			if r.err != nil {
				if errors.Is(r.err, fs.ErrNotExist) {
					continue
				}
				return nil, false, r.err
			}
			reusedAll = reusedAll && r.reused
			next.dirs[level[i]] = r.st
			below = append(below, r.st.subdirs...)
		}
		level = below
	}
	if reusedAll && len(next.dirs) == len(prev.dirs) {
		return prev, false, nil
	}
	next.IDs = mergeDirs(next.dirs, dataDir)
	if prev != nil && slices.Equal(next.IDs, prev.IDs) {
		next.IDs = prev.IDs
		return next, false, nil
	}
	return next, true, nil
}

// dirReaders bounds the directories ListIDs reads at once: enough to keep
// a disk queue busy, few enough not to swamp a small machine.
const dirReaders = 8

type stateResult struct {
	st     dirState
	reused bool
	err    error
}

// readStates runs stateOf for every dir, dirReaders at a time; result i
// belongs to dirs[i].
func readStates(dirs []string, prev *IDList, now time.Time) []stateResult {
	out := make([]stateResult, len(dirs))
	var g errgroup.Group
	g.SetLimit(dirReaders)
	for i, dir := range dirs {
		g.Go(func() error {
			r := &out[i]
			r.st, r.reused, r.err = stateOf(dir, prev, now)
			return nil
		})
	}
	_ = g.Wait() // the errors are in out
	return out
}

// stateOf returns dir's state: prev's when the directory is unchanged
// (reused), else read now.
func stateOf(dir string, prev *IDList, now time.Time) (st dirState, reused bool, err error) {
	// A plain lstat (one syscall per directory and listing) is enough to
	// decide reuse: a state is only ever read by readDir, which refuses
	// symlinks anywhere in dir, and a directory swapped since shows another
	// inode and is read (and refused) again.
	var sys unix.Stat_t
	if err := unix.Lstat(dir, &sys); err != nil {
		return dirState{}, false, &fs.PathError{Op: "lstat", Path: dir, Err: err}
	}
	mtime := time.Unix(sys.Mtim.Unix())
	ctime := time.Unix(sys.Ctim.Unix())
	if prev != nil {
		if old, ok := prev.dirs[dir]; ok && !old.racy && old.ino == sys.Ino && old.mtime == mtime.UnixNano() && old.ctime == ctime.UnixNano() {
			return old, true, nil
		}
	}
	ids, subdirs, err := readDir(dir)
	if err != nil {
		return dirState{}, false, err
	}
	return dirState{
		ino: sys.Ino, mtime: mtime.UnixNano(), ctime: ctime.UnixNano(), ids: ids, subdirs: subdirs,
		racy: now.Sub(mtime) < racyWindow || now.Sub(ctime) < racyWindow,
	}, false, nil
}

// mergeDirs merges the keys of every directory like Walk.
func mergeDirs(dirs map[string]dirState, dataDir string) []string {
	var rd []recordDir
	n := 0
	for dir, st := range dirs {
		if len(st.ids) > 0 {
			rd = append(rd, recordDir{dir: dir, ids: st.ids})
			n += len(st.ids)
		}
	}
	ids := make([]string, 0, n)
	merge(rd, dataDir, "", func(id string, _ *recordDir) error {
		ids = append(ids, id)
		return nil
	})
	return ids
}
