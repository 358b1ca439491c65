package docindex

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"maps"
	"slices"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// checkpoint is one sparse-index item: the RK of a main-file line and the
// byte offset where that line starts.
type checkpoint struct {
	key    string
	offset int64
}

// readCheckpoints reads <FK>.idx.jsonc. Items whose key is not a string or
// offset not an int are skipped (as PHP). A missing or unreadable sparse
// index yields no checkpoints: readers then scan from offset 0, which gives
// the same result (PHP would throw on an undecodable one).
func (m *Manager) readCheckpoints(field string) []checkpoint {
	content, err := fsutil.ReadFile(m.paths.rangeIdx(field))
	if err != nil {
		return nil
	}
	obj, err := decodeJSONCObject(content, m.paths.rangeIdx(field))
	if err != nil {
		return nil
	}
	items, ok := lookupArray(obj, "checkpoints")
	if !ok {
		return nil
	}
	out := make([]checkpoint, 0, items.Len())
	for _, it := range items.Values() {
		el, ok := it.(*phpjson.Array)
		if !ok {
			continue
		}
		key, ok := lookupString(el, "key")
		if !ok {
			continue
		}
		off, _ := el.Lookup("offset")
		n, ok := off.(int64)
		if !ok {
			continue
		}
		out = append(out, checkpoint{key: key, offset: n})
	}
	return out
}

// seekOffset is PHP range_seek_offset: the offset of the last checkpoint
// whose key is strictly less than lower (0 when lower is open).
func seekOffset(cps []checkpoint, lower string) int64 {
	if lower == "" {
		return 0
	}
	var off int64
	for _, c := range cps {
		if c.key >= lower {
			break
		}
		off = c.offset
	}
	return off
}

// forEachLine calls fn for every line of path from offset on (each line
// with its trailing \n when present; a torn last line without it). A
// missing file has no lines. fn returning errStopLines ends the walk. Open
// and read failures are errUnreadableRange errors.
func forEachLine(path string, offset int64, fn func(line []byte) error) error {
	f, err := fsutil.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return unreadableRange(path, err)
	}
	defer f.Close()
	if offset > 0 {
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			return unreadableRange(path, err)
		}
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if ferr := fn(line); ferr != nil {
				if ferr == errStopLines {
					return nil
				}
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return unreadableRange(path, err)
		}
	}
}

var errStopLines = errors.New("stop reading lines")

// errUnreadableRange classifies open/read failures of range files. Lookups
// treat them as "no lines" (PHP's fopen/fgets failures end silently);
// verify reports them.
var errUnreadableRange = errors.New("unreadable range index file")

func unreadableRange(path string, cause error) error {
	return &PHPError{Msg: "Unreadable range index file: " + path, Err: errors.Join(errUnreadableRange, cause)}
}

// tolerateUnreadable drops errUnreadableRange failures (lookup semantics).
func tolerateUnreadable(err error) error {
	if errors.Is(err, errUnreadableRange) {
		return nil
	}
	return err
}

// idSet applies adds then removes in order (7.7 effective content).
type idSet map[string]struct{}

func (s idSet) apply(e rangeEntry) {
	for _, id := range e.ids {
		s[id] = struct{}{}
	}
	for _, id := range e.remove {
		delete(s, id)
	}
}

func (s idSet) sorted() []string { return slices.Sorted(maps.Keys(s)) }

// rangeValueIDs is PHP ids_for_range_value: the ids of the lines of the
// main file (seeking, stopping once the key passes RK(v)) and then of the
// delta file whose key is RK(v) and whose value is strictly identical to v,
// adds and removes applied in file order. Sorted.
func (m *Manager) rangeValueIDs(field string, v phpjson.Value) ([]string, error) {
	key := RangeKey(v)
	set := idSet{}
	visit := func(sorted bool) func(line []byte) error {
		return func(line []byte) error {
			if lk, ok := rangeLineKey(line); ok {
				if sorted && lk > key {
					return errStopLines
				}
				if lk != key {
					return nil
				}
			}
			e, ok := decodeRangeLine(line)
			if !ok || !e.hasKey || e.key != key || !phpjson.Identical(e.value, v) {
				return nil
			}
			set.apply(e)
			return nil
		}
	}
	start := seekOffset(m.readCheckpoints(field), key)
	if err := tolerateUnreadable(forEachLine(m.paths.rangeMain(field), start, visit(true))); err != nil {
		return nil, err
	}
	if err := tolerateUnreadable(forEachLine(m.paths.rangeDelta(field), 0, visit(false))); err != nil {
		return nil, err
	}
	return set.sorted(), nil
}
