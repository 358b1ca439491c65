package shard

import (
	"errors"
	"io/fs"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// ErrStop, returned by a Walk callback, ends the walk without error.
var ErrStop = errors.New("shard: stop walk")

// Entry is one record file found by a scan.
type Entry struct {
	ID   string // file name without ".jsonc" (not necessarily a valid UUID)
	Path string // dir + "/" + file name
}

// Walk lists record files like PHP's stream()/stats() scan (docs/format/docstore.md §8.4): every
// regular file below C/data (any depth; no symlink is followed, where
// PHP follows symlinked files; a symlinked C or data/ fails) whose
// name ends in ".jsonc" with a non-empty stem, keyed by the stem, in
// bytewise key order; keys <= after are skipped (after "" = all). Files in
// a wrong bucket (or directly in data/, or deeper) are listed too. When one
// key exists in several directories only one is listed: the one in its own
// bucket directory if present, else the first in bytewise directory order
// (PHP keeps an unspecified one).
//
// Memory: all directories are read first (a snapshot), one sorted []string
// of names per directory, then merged. fn returning ErrStop ends the walk
// with nil; any other error is returned as is. A missing C/data means no
// records.
func Walk(collectionDir, after string, fn func(Entry) error) error {
	dataDir := DataDir(collectionDir)
	dirs, err := readRecordDirs(dataDir)
	if err != nil {
		return err
	}
	return stopIsNil(merge(dirs, dataDir, after, func(id string, d *recordDir) error {
		return fn(Entry{ID: id, Path: d.dir + "/" + id + RecordExt})
	}))
}

// WalkIDs is Walk without the paths: every record key once, in bytewise
// order, keys <= after skipped.
func WalkIDs(collectionDir, after string, fn func(id string) error) error {
	dataDir := DataDir(collectionDir)
	dirs, err := readRecordDirs(dataDir)
	if err != nil {
		return err
	}
	return stopIsNil(merge(dirs, dataDir, after, func(id string, _ *recordDir) error {
		return fn(id)
	}))
}

func stopIsNil(err error) error {
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// recordDir is one directory's sorted record keys and a merge cursor.
type recordDir struct {
	dir  string
	ids  []string
	next int
}

// merge calls fn for every key of dirs in bytewise order, keys <= after
// skipped, once per key: with the directory that is the key's own bucket
// if it holds it, else the first in directory order (dirs need not be
// sorted). It stops at the first error of fn. dirs' cursors are consumed.
func merge(dirs []recordDir, dataDir, after string, fn func(id string, d *recordDir) error) error {
	h := make(dirHeap, 0, len(dirs))
	for i := range dirs {
		d := &dirs[i]
		d.next = sort.SearchStrings(d.ids, after)
		if d.next < len(d.ids) && d.ids[d.next] == after {
			d.next++
		}
		if d.next < len(d.ids) {
			h = append(h, heapItem{head: d.ids[d.next], d: d})
		}
	}
	h.init()
	for len(h) > 0 {
		id, best := h[0].head, h[0].d
		h.advanceTop()
		// Same key in other directories: choose one, drop the rest.
		for len(h) > 0 && h[0].head == id {
			o := h[0].d
			if !isOwnBucket(best.dir, dataDir, id) && isOwnBucket(o.dir, dataDir, id) {
				best = o
			}
			h.advanceTop()
		}
		if err := fn(id, best); err != nil {
			return err
		}
	}
	return nil
}

// isOwnBucket reports whether dir is dataDir + "/" + BucketOf(id), without
// building that string.
func isOwnBucket(dir, dataDir, id string) bool {
	b := BucketOf(id)
	return len(dir) == len(dataDir)+1+len(b) && dir[:len(dataDir)] == dataDir &&
		dir[len(dataDir)] == '/' && dir[len(dataDir)+1:] == b
}

// heapItem is a directory in the merge heap with its current key (head =
// d.ids[d.next]), kept inline so that comparisons touch only the heap.
type heapItem struct {
	head string
	d    *recordDir
}

// dirHeap is a min-heap of directories by (current key, directory path).
type dirHeap []heapItem

func (h dirHeap) less(i, j int) bool {
	if c := strings.Compare(h[i].head, h[j].head); c != 0 {
		return c < 0
	}
	return h[i].d.dir < h[j].d.dir
}

func (h dirHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h dirHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// advanceTop moves the top directory's cursor on, dropping it when done.
func (h *dirHeap) advanceTop() {
	top := &(*h)[0]
	top.d.next++
	if top.d.next < len(top.d.ids) {
		top.head = top.d.ids[top.d.next]
	} else {
		last := len(*h) - 1
		(*h)[0] = (*h)[last]
		*h = (*h)[:last]
	}
	h.down(0)
}

// readRecordDirs reads dataDir recursively and returns every directory that
// holds at least one record name, each with its keys sorted, in no
// particular order. The subtrees below dataDir (the buckets) are read by
// up to walkReaders goroutines: a scan cannot start before every directory
// is read, and reading them is a good part of a scan.
func readRecordDirs(dataDir string) ([]recordDir, error) {
	ids, subdirs, err := readDir(dataDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil // no data/ yet, or removed while we walk
		}
		return nil, err
	}
	var out []recordDir
	if len(ids) > 0 {
		out = append(out, recordDir{dir: dataDir, ids: ids})
	}
	trees := make([][]recordDir, len(subdirs))
	errs := make([]error, len(subdirs))
	var failed atomic.Bool // a reader failed: the others stop early
	var g errgroup.Group
	g.SetLimit(min(runtime.GOMAXPROCS(0), walkReaders))
	for i := range subdirs {
		g.Go(func() error {
			if trees[i], errs[i] = readTrees(subdirs[i:i+1], nil, &failed); errs[i] != nil {
				failed.Store(true)
			}
			return nil
		})
	}
	_ = g.Wait() // the errors are in errs: the first by position is reported
	for i := range subdirs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, trees[i]...)
	}
	return out, nil
}

// walkReaders bounds the goroutines of readRecordDirs.
const walkReaders = 4

// readTrees reads the directories roots and everything below them, adding
// those that hold record names to out. It stops early once stop (may be
// nil) is set; the caller then has an error to report.
func readTrees(roots []string, out []recordDir, stop *atomic.Bool) ([]recordDir, error) {
	stack := append([]string(nil), roots...)
	for len(stack) > 0 && (stop == nil || !stop.Load()) {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ids, subdirs, err := readDir(dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while we walk
			}
			return out, err
		}
		stack = append(stack, subdirs...)
		if len(ids) > 0 {
			out = append(out, recordDir{dir: dir, ids: ids})
		}
	}
	return out, nil
}
