package docstore

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/readahead"
)

// exportChunk is PHP's JSONL_EXPORT_BUFFER_BYTES: exportJsonl collects
// lines until it holds at least this many bytes, then writes them all.
const exportChunk = 1 << 20

// ExportJSONL writes every record, in id order, as its canonical line
// {"id":"<id>","data":<J(data)>}\n to path (created or truncated; parent
// directories created; no lock, no fsync) and returns the number of lines
// (docs/format/docstore.md §10.1). An unreadable record fails midway, leaving a partial file.
func (s *Store) ExportJSONL(path string) (int, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return 0, wrapError(nil, msgExportOpen+path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return 0, wrapError(nil, msgExportOpen+path, err)
	}
	n, err := s.ExportJSONLTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// ExportJSONLTo writes the lines of ExportJSONL to out (standard output
// for `storhfs export ... -`) and returns their number. Like PHP it writes
// in chunks of at least exportChunk bytes and, when a record fails, drops
// the lines of the unwritten chunk: a failed export leaves exactly the
// bytes PHP's leaves (nothing, below 1 MiB).
func (s *Store) ExportJSONLTo(out io.Writer) (int, error) {
	return s.exportTo(out, exportChunk, nil)
}

// exportTo is ExportJSONLTo writing in chunks of at least chunk bytes,
// with the walk wrapped by wrap when it is not nil.
func (s *Store) exportTo(out io.Writer, chunk int, wrap func(scanWalk) scanWalk) (int, error) {
	walk := s.walkScanned("", nil)
	if wrap != nil {
		walk = wrap(walk)
	}
	buf := make([]byte, 0, chunk)
	n := 0
	err := stopIsNil(readahead.Run(walk, scanWindow, loadExportLine, func(r *scanned) error {
		if r.err != nil || r.line == nil {
			return r.err // nil: the file vanished
		}
		buf = append(buf, r.line...)
		n++
		if len(buf) >= chunk {
			if _, err := out.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		return nil
	}))
	if err != nil {
		return n, err
	}
	if len(buf) > 0 {
		_, err = out.Write(buf)
	}
	return n, err
}

// loadExportLine sets r.line to r's export line (nil when the file
// vanished) on the reading goroutine, so that work runs on every core
// while the consumer only writes. A record file already in canonical form
// (canonicalExportLine) is its own export line; any other is read in full
// and re-encoded.
func loadExportLine(r *scanned) {
	r.rec, r.size, r.err = loadRecord(r.id, r.recordFile, func(content []byte) bool {
		r.line = canonicalExportLine(content, r.id)
		return r.line != nil
	})
	if r.line != nil {
		return // canonical: r.line is the file's bytes
	}
	if r.err == nil && r.rec != nil {
		r.line, r.err = encodeRecord(r.id, r.rec.Data)
	}
}

// ImportJSONL writes one record per non-blank line of path under one lock
// hold and returns how many were written (docs/format/docstore.md §10.2). A line that is
// exactly {"id": <string>, "data": <array>} (any order) is stored verbatim
// (form A); any other object is a bulk row (form B, integer-like members
// dropped). The first failing line stops the import; earlier lines stay.
func (s *Store) ImportJSONL(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, wrapError(nil, msgImportOpen+path, err)
	}
	defer f.Close()
	return s.ImportJSONLFrom(f)
}

// ImportJSONLFrom imports the lines of in (standard input for `storhfs
// import ... -`) as ImportJSONL does. A failing line's error is a
// *LineError.
func (s *Store) ImportJSONLFrom(in io.Reader) (int, error) {
	r := bufio.NewReaderSize(in, 64<<10)
	n, lineNo := 0, 0
	err := s.withWriteLock(func() error {
		for {
			line, rerr := r.ReadBytes('\n')
			lineNo++
			if len(line) > 0 {
				if err := s.importLine(line); err != nil {
					return &LineError{Line: lineNo, Err: err}
				}
				if !blankLine(bytes.TrimRight(line, "\r\n")) {
					n++
				}
			}
			if rerr == io.EOF {
				return nil
			}
			if rerr != nil {
				return fmt.Errorf("read line %d: %w", lineNo, rerr)
			}
		}
	})
	return n, err
}

// LineError is the failure of one line of an import. Its message is the
// engine's own (storh's, unchanged, so results compare with PHP's); Line,
// counted from 1, is for callers that show where the input went wrong.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return e.Err.Error() }
func (e *LineError) Unwrap() error { return e.Err }

// blankLine reports whether line holds only space, \t, \v, \f, \r.
func blankLine(line []byte) bool {
	return len(bytes.Trim(line, " \t\v\f\r")) == 0
}

// importLine imports one raw line (with its line end); blank lines are
// skipped.
func (s *Store) importLine(raw []byte) error {
	line := bytes.TrimRight(raw, "\r\n")
	if blankLine(line) {
		return nil
	}
	v, err := phpjson.Decode(line)
	if err != nil {
		return err
	}
	row, ok := v.(*phpjson.Array)
	if !ok {
		return newError(ErrInvalidArgument, msgImportRows)
	}
	if id, data, ok := formA(row); ok {
		if err := validID(id); err != nil {
			return err
		}
		content := make([]byte, len(line)+1)
		copy(content, line)
		content[len(line)] = '\n'
		_, err := s.writeLocked(recordWrite{id: id, explicit: true, data: data, raw: content})
		return err
	}
	clean := phpjson.NewArray(row.Len())
	for i := 0; i < row.Len(); i++ {
		if k, v := row.At(i); !k.IsInt() {
			clean.Set(k, v)
		}
	}
	_, err = s.putRowLocked(clean)
	return err
}

// formA reports whether row has exactly the members "id" (a string) and
// "data" (an array), in any order.
func formA(row *phpjson.Array) (string, *phpjson.Array, bool) {
	if row.Len() != 2 {
		return "", nil, false
	}
	idv, ok1 := row.Lookup("id")
	dv, ok2 := row.Lookup("data")
	if !ok1 || !ok2 {
		return "", nil, false
	}
	id, ok := idv.(string)
	data, ok2 := dv.(*phpjson.Array)
	return id, data, ok && ok2
}
