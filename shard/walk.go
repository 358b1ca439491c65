package shard

import (
	"container/heap"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
)

// ErrStop, returned by a Walk callback, ends the walk without error.
var ErrStop = errors.New("shard: stop walk")

// Entry is one record file found by a scan.
type Entry struct {
	ID   string // file name without ".jsonc" (not necessarily a valid UUID)
	Path string // dir + "/" + file name
}

// Walk lists record files like PHP's stream()/stats() scan (spec 8.5): every
// file below C/data (any depth, symlinked directories not followed) whose
// name ends in ".jsonc" with a non-empty stem, keyed by the stem, in
// bytewise key order; keys <= after are skipped (after "" = all). Files in
// a wrong bucket (or directly in data/, or deeper) are listed too. When one
// key exists in several directories only one is listed: the one in its own
// bucket directory if present, else the first in bytewise directory order
// (PHP keeps an unspecified one).
//
// Memory: all directories are read first (a snapshot), one sorted []string
// of names per directory, then merged with a heap. fn returning ErrStop
// ends the walk with nil; any other error is returned as is. A missing
// C/data means no records.
func Walk(collectionDir, after string, fn func(Entry) error) error {
	dirs, err := readRecordDirs(DataDir(collectionDir))
	if err != nil {
		return err
	}
	h := make(mergeHeap, 0, len(dirs))
	for i := range dirs {
		d := &dirs[i]
		d.next = sort.SearchStrings(d.ids, after)
		if d.next < len(d.ids) && d.ids[d.next] == after {
			d.next++
		}
		if d.next < len(d.ids) {
			h = append(h, d)
		}
	}
	heap.Init(&h)
	dataDir := DataDir(collectionDir)
	for len(h) > 0 {
		d := h[0]
		id := d.ids[d.next]
		best := d
		d.next++
		fix(&h, 0)
		// Same key in other directories: choose one, drop the rest.
		for len(h) > 0 && h[0].ids[h[0].next] == id {
			o := h[0]
			if best.dir != dataDir+"/"+BucketOf(id) && o.dir == dataDir+"/"+BucketOf(id) {
				best = o
			}
			o.next++
			fix(&h, 0)
		}
		if err := fn(Entry{ID: id, Path: best.dir + "/" + id + RecordExt}); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// fix restores the heap after h[i] advanced, popping it when exhausted.
func fix(h *mergeHeap, i int) {
	if d := (*h)[i]; d.next >= len(d.ids) {
		heap.Remove(h, i)
		return
	}
	heap.Fix(h, i)
}

// recordDir is one directory's sorted record keys and a merge cursor.
type recordDir struct {
	dir  string
	ids  []string
	next int
}

type mergeHeap []*recordDir

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	a, b := h[i].ids[h[i].next], h[j].ids[h[j].next]
	if a != b {
		return a < b
	}
	return h[i].dir < h[j].dir
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(*recordDir)) }
func (h *mergeHeap) Pop() any {
	old := *h
	d := old[len(old)-1]
	*h = old[:len(old)-1]
	return d
}

// readRecordDirs reads dataDir recursively and returns every directory that
// holds at least one record name, each with its keys sorted.
func readRecordDirs(dataDir string) ([]recordDir, error) {
	var out []recordDir
	stack := []string{dataDir}
	for len(stack) > 0 {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f, err := os.Open(dir)
		if err != nil {
			if dir == dataDir && errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while we walk
			}
			return nil, fmt.Errorf("scan records %s: %w", dir, err)
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("scan records %s: %w", dir, err)
		}
		var ids []string
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() {
				stack = append(stack, dir+"/"+name)
				continue
			}
			id, ok := IDFromName(name)
			if !ok {
				continue
			}
			if !e.Type().IsRegular() && !isRegularTarget(dir+"/"+name) {
				continue
			}
			ids = append(ids, id)
		}
		if len(ids) > 0 {
			sort.Strings(ids)
			out = append(out, recordDir{dir: dir, ids: ids})
		}
	}
	return out, nil
}

// isRegularTarget reports whether path (a symlink or special file) stats to
// a regular file; PHP's isFile() follows symlinks.
func isRegularTarget(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
