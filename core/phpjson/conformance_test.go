package phpjson

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/internal/corpus"
)

func conformanceDir(t testing.TB) string { return corpus.Require(t) }

func readLines(t testing.TB, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestConformanceResultLines re-encodes every PHP result line of every case:
// decode (no depth limit) then Encode must give the same bytes, and every
// op line must decode.
func TestConformanceResultLines(t *testing.T) {
	dir := conformanceDir(t)
	cases, _ := filepath.Glob(filepath.Join(dir, "*", "*", "results.jsonl"))
	if len(cases) < 20 {
		t.Fatalf("found %d cases, want 20", len(cases))
	}
	n := 0
	for _, res := range cases {
		for i, line := range readLines(t, res) {
			v, err := DecodeDepth(line, 0)
			if err != nil {
				t.Errorf("%s:%d: decode: %v", res, i+1, err)
				continue
			}
			out, err := Encode(v)
			if err != nil || !bytes.Equal(out, line) {
				t.Errorf("%s:%d: re-encode mismatch (%v)\n got %.300s\nwant %.300s", res, i+1, err, out, line)
			}
			n++
		}
		ops := filepath.Join(filepath.Dir(res), "ops.jsonl")
		for i, line := range readLines(t, ops) {
			if _, err := DecodeDepth(line, 0); err != nil {
				t.Errorf("%s:%d: decode: %v", ops, i+1, err)
			}
		}
	}
	t.Logf("%d result lines re-encoded byte-identically", n)
}

// recordLine is the canonical record text PHP builds for id and data.
func recordLine(t testing.TB, id string, rec *Array) []byte {
	t.Helper()
	data, _ := rec.Lookup("data")
	if _, ok := data.(*Array); !ok {
		data = NewArray(0) // docstore 3.5 step 5
	}
	out := []byte(`{"id":"` + id + `","data":`)
	out, err := AppendEncode(out, data)
	if err != nil {
		t.Fatalf("%s: encode: %v", id, err)
	}
	return append(out, '}')
}

// TestConformanceRecordFiles decodes every record file of the DocStore
// cases' expected/ trees with the JSONC reader; files written by PHP put()
// are canonical and must re-encode byte-identically.
func TestConformanceRecordFiles(t *testing.T) {
	dir := conformanceDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "doc", "*", "expected", "*", "data", "*", "*.jsonc"))
	if len(files) == 0 {
		t.Fatal("no record files found")
	}
	canonical := 0
	for _, path := range files {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := DecodeJSONCObject(text)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		id := strings.TrimSuffix(filepath.Base(path), ".jsonc")
		if got, _ := rec.Lookup("id"); got != id {
			// uppercase-ids and corrupt cases may keep mismatching files
			continue
		}
		want := append(recordLine(t, id, rec), '\n')
		if bytes.Equal(text, want) {
			canonical++
		} else if strings.Contains(path, "/doc/encoding/") || strings.Contains(path, "/doc/index-maintenance/") || strings.Contains(path, "/doc/query/") {
			// every record in these cases was written by PHP put()
			t.Errorf("%s: not canonical\n got %s\nwant %s", path, text, want)
		}
	}
	if canonical < len(files)/2 {
		t.Errorf("only %d of %d record files are canonical", canonical, len(files))
	}
	t.Logf("%d record files decoded, %d re-encoded byte-identically", len(files), canonical)
}

// TestConformanceGets replays the DocStore "get" ops that run before any
// write against the before/ files: the JSONC reader must reproduce PHP's
// outcome (the record, "JSONC document must decode to an object." or
// "Invalid JSONC storage file: ..."; id errors mean decoding succeeded).
func TestConformanceGets(t *testing.T) {
	dir := conformanceDir(t)
	cases, _ := filepath.Glob(filepath.Join(dir, "doc", "*", "ops.jsonl"))
	checked := 0
	for _, opsPath := range cases {
		caseDir := filepath.Dir(opsPath)
		ops := readLines(t, opsPath)
		results := readLines(t, filepath.Join(caseDir, "results.jsonl"))
		for i, line := range ops {
			op, err := DecodeDepth(line, 0)
			if err != nil {
				t.Fatal(err)
			}
			a := op.(*Array)
			name, _ := a.Lookup("op")
			if !readOnlyOps[name.(string)] {
				break // the files may have changed from here on
			}
			if name != "get" {
				continue
			}
			coll, _ := a.Lookup("collection")
			id, _ := a.Lookup("id")
			ids, _ := id.(string)
			if len(ids) != 36 {
				continue
			}
			path := filepath.Join(caseDir, "before", coll.(string), "data", ids[24:26], ids+".jsonc")
			text, err := os.ReadFile(path)
			if err != nil {
				continue // missing record: result null
			}
			checkGet(t, path, ids, text, results[i])
			checked++
		}
	}
	if checked < 25 {
		t.Errorf("checked only %d get ops", checked)
	}
	t.Logf("%d get ops replayed", checked)
}

// readOnlyOps leave record files as they are.
var readOnlyOps = map[string]bool{"open": true, "get": true, "stats": true, "verify": true, "stream": true, "query": true, "exportJsonl": true}

func checkGet(t *testing.T, path, id string, text, result []byte) {
	t.Helper()
	rec, err := DecodeJSONCObject(text)
	var jerr *JSONCError
	switch {
	case bytes.HasPrefix(result, []byte(`{"error":"JSONC document must decode to an object."`)):
		if err != ErrNotObject {
			t.Errorf("%s: got %v, want ErrNotObject", path, err)
		}
	case bytes.HasPrefix(result, []byte(`{"error":"Invalid JSONC storage file:`)):
		if !errors.As(err, &jerr) {
			t.Errorf("%s: got %v, want *JSONCError", path, err)
		}
	case bytes.HasPrefix(result, []byte(`{"error":`)):
		if err != nil { // an id error: the file itself decoded
			t.Errorf("%s: got %v, want a decoded object (PHP: %s)", path, err, result)
		}
	default:
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return
		}
		if got := recordLine(t, id, rec); !bytes.Equal(got, result) {
			t.Errorf("%s:\n got %s\nwant %s", path, got, result)
		}
	}
}
