package docstore

import (
	"container/heap"
	"encoding/hex"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/shard"
)

// aheadWalk calls fn with the path of every record file named
// "<uuid>.jsonc" in a bucket directory of dataDir, in id order, holding
// 16 bytes an id (shard.Walk holds each name as a string: several times
// that, and the export's own walk already holds one such copy). It is
// only for hints: files elsewhere, or named otherwise, are left out. fn
// returning an error ends the walk with it.
func aheadWalk(dataDir string, fn func(path string) error) error {
	buckets, err := fsutil.ReadDir(dataDir)
	if err != nil {
		return err
	}
	var h idHeap
	for _, b := range buckets {
		if !b.IsDir() {
			continue
		}
		dir := filepath.Join(dataDir, b.Name())
		ids, err := bucketIDs(dir)
		if err != nil || len(ids) == 0 {
			continue
		}
		slices.SortFunc(ids, func(a, b [16]byte) int { return strings.Compare(string(a[:]), string(b[:])) })
		h = append(h, &idRun{dir: dir, ids: ids})
	}
	heap.Init(&h)
	for len(h) > 0 {
		r := h[0]
		if err := fn(r.dir + "/" + uuidString(r.ids[0]) + shard.RecordExt); err != nil {
			return err
		}
		if r.ids = r.ids[1:]; len(r.ids) == 0 {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
	}
	return nil
}

// bucketIDs reads the ids of the "<uuid>.jsonc" names in dir, a batch of
// names at a time, so that only the 16-byte ids outlive the read.
func bucketIDs(dir string) ([][16]byte, error) {
	f, err := fsutil.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ids [][16]byte
	for {
		names, err := f.Readdirnames(256)
		for _, name := range names {
			if id, ok := parseUUIDName([]byte(name)); ok {
				ids = append(ids, id)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return ids, err
		}
	}
}

// parseUUIDName parses "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.jsonc" in
// lowercase hex, the only spelling whose byte order is its name's order.
func parseUUIDName(name []byte) (id [16]byte, ok bool) {
	const stemLen = 36
	if len(name) != stemLen+len(shard.RecordExt) || string(name[stemLen:]) != shard.RecordExt {
		return id, false
	}
	j := 0
	for i := 0; i < stemLen; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if name[i] != '-' {
				return id, false
			}
			i++
			continue
		}
		hi, ok1 := lowerHex(name[i])
		lo, ok2 := lowerHex(name[i+1])
		if !ok1 || !ok2 {
			return id, false
		}
		id[j] = hi<<4 | lo
		i, j = i+2, j+1
	}
	return id, true
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func uuidString(id [16]byte) string {
	s := hex.EncodeToString(id[:])
	return s[0:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:32]
}

// idRun is the ids of one bucket not walked yet, sorted.
type idRun struct {
	dir string
	ids [][16]byte
}

// idHeap orders runs by their next id.
type idHeap []*idRun

func (h idHeap) Len() int { return len(h) }
func (h idHeap) Less(i, j int) bool {
	return string(h[i].ids[0][:]) < string(h[j].ids[0][:])
}
func (h idHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *idHeap) Push(x any)   { *h = append(*h, x.(*idRun)) }
func (h *idHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}
