package docindex

import (
	"bytes"
	"slices"
	"sort"
	"strconv"

	"github.com/storhfs/storhfs/core/phpjson"
)

const (
	// rangeChunkEntries: collected range lines (all range fields together)
	// are flushed to sorted chunk files once this many are held (7.7).
	rangeChunkEntries = 16384
	// sparseStride: one checkpoint per this many main-file lines.
	sparseStride = 256
)

// rangeCollector holds a rebuild's range lines. Each held line is
//
//	RK \t VK \t {"key":"<RK>","value":<J(v)>,"count":1,"ids":["<id>"],"remove":[]}\n
//
// (the chunk-file line of 7.7); sorting these bytewise is PHP's sort of
// the same strings. Every rangeChunkEntries lines they go, sorted, to
// chunk files .chunks/<FK>-<n>.jsonl; the lines still held at the end are
// merged from memory (PHP writes them as one more chunk and reads it back;
// it is deleted before the rebuild returns, so the resulting files are
// the same).
type rangeCollector struct {
	paths     paths
	w         *syncWriter
	ensureDir func(string) error

	held   int                    // lines held, all fields
	fields map[string]*rangeField // by field name
	order  []*rangeField          // first-seen order
}

// rangeField is one range field's held lines and written chunks.
type rangeField struct {
	name   string
	held   lineSet
	chunks []string // chunk files submitted, in order
	bytes  int      // total size of the chunk files
}

// lineSet is a field's held lines, in insertion order, and their total size.
type lineSet struct {
	lines [][]byte
	size  int
}

func (l *lineSet) add(line []byte) {
	l.lines = append(l.lines, line)
	l.size += len(line)
}

// sorted sorts the lines bytewise and returns them.
func (l *lineSet) sorted() [][]byte {
	slices.SortFunc(l.lines, bytes.Compare)
	return l.lines
}

func newRangeCollector(p paths, w *syncWriter, ensureDir func(string) error) *rangeCollector {
	return &rangeCollector{paths: p, w: w, ensureDir: ensureDir, fields: map[string]*rangeField{}}
}

// add holds the main-file line of id's value v in field.
func (c *rangeCollector) add(field, id string, v phpjson.Value) error {
	f := c.fields[field]
	if f == nil {
		f = &rangeField{name: field}
		c.fields[field] = f
		c.order = append(c.order, f)
	}
	buf := appendRangeKey(make([]byte, 0, 256), v)
	rkEnd := len(buf)
	buf = append(buf, '\t')
	buf = appendValueKey(buf, v)
	buf = append(buf, '\t')
	// The line is appendRangeLine(rk, v, [id], []) spelled out. RK is
	// made of [0-9A-Za-z-] only, so its JSON string is the RK in quotes.
	buf = append(buf, `{"key":"`...)
	buf = append(buf, buf[:rkEnd]...)
	buf = append(buf, `","value":`...)
	buf, err := phpjson.AppendEncode(buf, v)
	if err == nil {
		buf = append(buf, `,"count":1,"ids":[`...)
		buf, err = phpjson.AppendString(buf, id)
	}
	if err != nil {
		return err
	}
	f.held.add(append(buf, "],\"remove\":[]}\n"...))
	c.held++
	return nil
}

// flush writes the held lines of each field (in field-name order) as one
// sorted chunk file .chunks/<FK>-<n>.jsonl, n counting per field from 0.
// Sorting and writing happen in the background.
func (c *rangeCollector) flush() error {
	if err := c.ensureDir(c.paths.chunksDir()); err != nil {
		return err
	}
	names := make([]string, 0, len(c.fields))
	for name, f := range c.fields {
		if len(f.held.lines) > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		f := c.fields[name]
		held := f.held
		f.held = lineSet{}
		path := c.paths.chunk(name, len(f.chunks))
		f.chunks = append(f.chunks, path)
		f.bytes += held.size
		c.w.write(path, func() ([]byte, error) {
			return bytes.Join(held.sorted(), nil), nil
		})
	}
	c.held = 0
	return nil
}

// finish merges each field's chunks and held lines into its main file and
// sparse index (both handed to the writer) and returns the chunk files,
// which the caller deletes once the writes are done.
func (c *rangeCollector) finish() (chunks []string, err error) {
	if c.held > 0 {
		// PHP's final flush creates .chunks/ even when no chunk was
		// written before; the directory stays after the rebuild.
		if err := c.ensureDir(c.paths.chunksDir()); err != nil {
			return nil, err
		}
	}
	if err := c.w.wait(); err != nil { // the chunk files are complete
		return nil, err
	}
	for _, f := range c.order {
		main, idx, err := mergeRangeLines(f.chunks, f.held.sorted(), f.bytes+f.held.size)
		if err != nil {
			return nil, err
		}
		f.held = lineSet{}
		c.w.write(c.paths.rangeMain(f.name), func() ([]byte, error) { return main, nil })
		c.w.write(c.paths.rangeIdx(f.name), func() ([]byte, error) { return idx, nil })
		chunks = append(chunks, f.chunks...)
	}
	return chunks, nil
}

// mergeRangeLines k-way merges the sorted chunk files and the sorted held
// lines into the main file's bytes (the chunk lines without "RK\tVK\t")
// and the sparse index: one checkpoint {"key":RK,"offset":byte offset}
// per sparseStride lines, counted from line 0.
// sizeHint (the input bytes, prefixes included) presizes the main buffer.
func mergeRangeLines(chunkPaths []string, held [][]byte, sizeHint int) (main, idx []byte, err error) {
	main = make([]byte, 0, sizeHint)
	sources := make([]*sortedLines, 0, len(chunkPaths)+1)
	defer func() {
		for _, s := range sources {
			s.close()
		}
	}()
	for _, p := range chunkPaths {
		s, err := openChunk(p)
		if err != nil {
			return nil, nil, err
		}
		sources = append(sources, s)
	}
	sources = append(sources, heldLines(held))

	var cps []byte
	lines := 0
	for {
		sel := -1
		for i, s := range sources {
			if s.head != nil && (sel < 0 || bytes.Compare(s.head, sources[sel].head) < 0) {
				sel = i
			}
		}
		if sel < 0 {
			break
		}
		rk, line, err := chunkLineParts(sources[sel].head)
		if err != nil {
			return nil, nil, err
		}
		if lines%sparseStride == 0 {
			if lines > 0 {
				cps = append(cps, ',')
			}
			cps = append(cps, `{"key":`...)
			if cps, err = phpjson.AppendString(cps, string(rk)); err != nil {
				return nil, nil, err
			}
			cps = append(cps, `,"offset":`...)
			cps = strconv.AppendInt(cps, int64(len(main)), 10)
			cps = append(cps, '}')
		}
		main = append(main, line...)
		lines++
		if err := sources[sel].next(); err != nil {
			return nil, nil, err
		}
	}
	idx = append([]byte(`{"stride":`+strconv.Itoa(sparseStride)+`,"checkpoints":[`), cps...)
	idx = append(idx, "]}\n"...)
	return main, idx, nil
}

// chunkLineParts splits "RK\tVK\t<line>" into RK and the line.
func chunkLineParts(s []byte) (rk, line []byte, err error) {
	first := bytes.IndexByte(s, '\t')
	if first < 0 {
		return nil, nil, &PHPError{Msg: "Malformed range index chunk."}
	}
	second := bytes.IndexByte(s[first+1:], '\t')
	if second < 0 {
		return nil, nil, &PHPError{Msg: "Malformed range index chunk."}
	}
	return s[:first], s[first+1+second+1:], nil
}
