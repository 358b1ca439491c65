package docindex

import (
	"os"
	"sort"
	"strconv"
	"strings"

	"storhfs/core/fsutil"
	"storhfs/core/phpjson"
)

const (
	// rangeChunkEntries: collected range lines (all range fields together)
	// are flushed to sorted chunk files once this many are held (7.7).
	rangeChunkEntries = 16384
	// eqFlushIDs: equality/compound ids held in memory before they are
	// merged into their files mid-rebuild (PHP EQ_REBUILD_FLUSH_IDS).
	eqFlushIDs = 1 << 20
	// sparseStride: one checkpoint per this many main-file lines.
	sparseStride = 256
)

// Rebuild deletes entries/, recreates it empty and rebuilds every index
// from src (spec 7.9; call under the write lock). It returns the number of
// definitions and the number of records read. When src fails (a corrupt
// record), entries/ has already been emptied: PHP's behaviour.
func (m *Manager) Rebuild(src RecordSource) (fields, entries int, err error) {
	defs, err := m.definitions()
	if err != nil {
		return 0, 0, err
	}
	root := m.paths.entries()
	_ = os.RemoveAll(root) // PHP ignores unlink/rmdir failures here
	if err := fsutil.EnsureDir(root); err != nil {
		return 0, 0, err
	}
	b := newRebuilder(m.paths, defs)
	if src != nil {
		err = src(func(id string, data *phpjson.Array) error {
			entries++
			return b.add(id, data)
		})
		if err != nil {
			return 0, 0, err
		}
	}
	if err := b.finish(); err != nil {
		return 0, 0, err
	}
	return len(defs), entries, nil
}

// rebuilder accumulates one rebuild's entries.
type rebuilder struct {
	paths paths
	defs  []Definition

	eq      map[string]*eqBucket // by file path
	eqOrder []string             // paths in first-seen order
	eqIDs   int                  // ids held in eq

	rangeLines   map[string][]string // field -> "RK\tVK\t<line>" not yet flushed
	rangeHeld    int
	rangeChunks  map[string][]string // field -> chunk files written
	rangeFields  []string            // fields with chunks, first-seen order
	compoundKeys map[string]string   // "VK\0VK" -> CK cache
}

type eqBucket struct {
	field, key string
	value      phpjson.Value // from the first record with this key (PHP ??=)
	ids        []string
}

func newRebuilder(p paths, defs []Definition) *rebuilder {
	return &rebuilder{
		paths:        p,
		defs:         defs,
		eq:           map[string]*eqBucket{},
		rangeLines:   map[string][]string{},
		rangeChunks:  map[string][]string{},
		compoundKeys: map[string]string{},
	}
}

// add collects the entries of one record, flushing when the held amounts
// reach PHP's thresholds.
func (b *rebuilder) add(id string, data *phpjson.Array) error {
	var pairFields, pairVKs []string
	for _, d := range b.defs {
		v, ok := fieldValue(data, d.Field)
		if !ok {
			continue
		}
		vk := ValueKey(v)
		if d.Range {
			rk := RangeKey(v)
			line, err := encodeRangeLine(rk, v, []string{id}, []string{})
			if err != nil {
				return err
			}
			b.rangeLines[d.Field] = append(b.rangeLines[d.Field], rk+"\t"+vk+"\t"+string(line))
			b.rangeHeld++
			continue
		}
		b.collect(b.paths.eqFile(d.Field, vk), d.Field, vk, v, id)
		if !d.Unique {
			pairFields = append(pairFields, d.Field)
			pairVKs = append(pairVKs, vk)
		}
	}
	for i := 0; i < len(pairFields)-1; i++ {
		for j := i + 1; j < len(pairFields); j++ {
			src := pairVKs[i] + "\x00" + pairVKs[j]
			ck, ok := b.compoundKeys[src]
			if !ok {
				ck = "c-" + xxh128Hex([]byte(src))
				b.compoundKeys[src] = ck
			}
			l, r := pairFields[i], pairFields[j]
			b.collect(b.paths.compoundFile(l, r, ck), l+"\t"+r, ck, nil, id)
		}
	}
	if b.eqIDs >= eqFlushIDs {
		if err := b.flushEq(); err != nil {
			return err
		}
	}
	if b.rangeHeld >= rangeChunkEntries {
		if err := b.flushRange(); err != nil {
			return err
		}
	}
	return nil
}

func (b *rebuilder) collect(path, field, key string, value phpjson.Value, id string) {
	bk := b.eq[path]
	if bk == nil {
		bk = &eqBucket{field: field, key: key, value: value}
		b.eq[path] = bk
		b.eqOrder = append(b.eqOrder, path)
	}
	bk.ids = append(bk.ids, id)
	b.eqIDs++
}

// flushEq merges the held equality/compound ids into their files.
func (b *rebuilder) flushEq() error {
	for _, path := range b.eqOrder {
		bk := b.eq[path]
		if err := addToEntry(path, bk.field, bk.key, bk.value, bk.ids); err != nil {
			return err
		}
	}
	b.eq, b.eqOrder, b.eqIDs = map[string]*eqBucket{}, nil, 0
	return nil
}

// flushRange writes the held range lines of each field as one sorted chunk
// file entries/range/.chunks/<FK>-<n>.jsonl (n counts per field from 0).
func (b *rebuilder) flushRange() error {
	fields := make([]string, 0, len(b.rangeLines))
	for f := range b.rangeLines {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		lines := b.rangeLines[f]
		sort.Strings(lines)
		if _, seen := b.rangeChunks[f]; !seen {
			b.rangeFields = append(b.rangeFields, f)
		}
		path := b.paths.chunk(f, len(b.rangeChunks[f]))
		if err := fsutil.WriteAtomic(path, []byte(strings.Join(lines, ""))); err != nil {
			return err
		}
		b.rangeChunks[f] = append(b.rangeChunks[f], path)
	}
	b.rangeLines, b.rangeHeld = map[string][]string{}, 0
	return nil
}

// finish flushes everything and merges each range field's chunks into its
// main file and sparse index.
func (b *rebuilder) finish() error {
	if err := b.flushEq(); err != nil {
		return err
	}
	if err := b.flushRange(); err != nil {
		return err
	}
	for _, f := range b.rangeFields {
		if err := mergeRangeChunks(b.paths, f, b.rangeChunks[f]); err != nil {
			return err
		}
	}
	return nil
}

// mergeRangeChunks k-way merges sorted chunk files into the main file
// (4.2), writes the sparse index, then deletes the chunks (the .chunks
// directory stays).
func mergeRangeChunks(p paths, field string, chunks []string) error {
	readers := make([]*chunkReader, 0, len(chunks))
	defer func() {
		for _, r := range readers {
			r.close()
		}
	}()
	for _, c := range chunks {
		r, err := openChunk(c)
		if err != nil {
			return err
		}
		readers = append(readers, r)
	}
	var main []byte
	var cps []byte
	lines := 0
	for {
		sel := -1
		for i, r := range readers {
			if r.head != "" && (sel < 0 || r.head < readers[sel].head) {
				sel = i
			}
		}
		if sel < 0 {
			break
		}
		rk, line, err := chunkLineParts(readers[sel].head)
		if err != nil {
			return err
		}
		if lines%sparseStride == 0 {
			if lines > 0 {
				cps = append(cps, ',')
			}
			cps = append(cps, `{"key":`...)
			if cps, err = appendJSON(cps, rk); err != nil {
				return err
			}
			cps = append(cps, `,"offset":`...)
			cps = strconv.AppendInt(cps, int64(len(main)), 10)
			cps = append(cps, '}')
		}
		main = append(main, line...)
		lines++
		if err := readers[sel].next(); err != nil {
			return err
		}
	}
	if err := fsutil.WriteAtomic(p.rangeMain(field), main); err != nil {
		return err
	}
	idx := append([]byte(`{"stride":`+strconv.Itoa(sparseStride)+`,"checkpoints":[`), cps...)
	idx = append(idx, "]}\n"...)
	if err := fsutil.WriteAtomic(p.rangeIdx(field), idx); err != nil {
		return err
	}
	for _, c := range chunks {
		_ = os.Remove(c)
	}
	return nil
}

// chunkLineParts splits "RK\tVK\t<line>" into RK and the line.
func chunkLineParts(s string) (rk, line string, err error) {
	first := strings.IndexByte(s, '\t')
	if first < 0 {
		return "", "", &PHPError{Msg: "Malformed range index chunk."}
	}
	second := strings.IndexByte(s[first+1:], '\t')
	if second < 0 {
		return "", "", &PHPError{Msg: "Malformed range index chunk."}
	}
	return s[:first], s[first+1+second+1:], nil
}
