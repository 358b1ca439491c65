package query

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/storhfs/storhfs/internal/corpus"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/internal/conformance"
)

func corpusDir(t *testing.T) string { return corpus.Require(t) }

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("conformance corpus: %v", err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	return lines
}

func str(op *phpjson.Array, key string) string {
	v, _ := op.Lookup(key)
	s, _ := v.(string)
	return s
}

// encodeRecord is a record as results.jsonl writes it: {"id":..,"data":..}.
func recordValue(r Record) *phpjson.Array {
	a := phpjson.NewArray(2)
	a.SetString("id", r.ID)
	data := r.Data
	if data == nil {
		data = phpjson.NewArray(0)
	}
	a.SetString("data", data)
	return a
}

// runQueryOp runs a conformance "query" op (README 4.6) and returns the
// result value, {"error": msg} for a storh exception.
func runQueryOp(t *testing.T, src Source, op *phpjson.Array) phpjson.Value {
	t.Helper()
	steps, _ := op.Lookup("build")
	stepList, _ := steps.(*phpjson.Array)
	b, err := conformance.ApplySteps(New(src), stepList)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	var result phpjson.Value
	switch call := str(op, "call"); call {
	case "get":
		var recs []Record
		if recs, err = b.Get(); err == nil {
			list := phpjson.NewArray(len(recs))
			for _, r := range recs {
				list.Append(recordValue(r))
			}
			result = list
		}
	case "first":
		var r *Record
		if r, err = b.First(); err == nil && r != nil {
			result = recordValue(*r)
		}
	case "count":
		var n int
		if n, err = b.Count(); err == nil {
			result = int64(n)
		}
	case "explain":
		result, err = b.Explain()
	default:
		t.Fatalf("unknown call %q", call)
	}
	if err != nil {
		e := phpjson.NewArray(1)
		e.SetString("error", err.Error())
		return e
	}
	return result
}

// replayCase replays the query ops of one corpus case against in-memory
// sources (no storage engine): records come from the put/putMany ops
// (explicit ids), "indexes" ops define fake indexes. It returns the number
// of query ops and how many equal PHP's result line (ops tagged
// quirk=index-path are compared with their scan twin's PHP result).
func replayCase(t *testing.T, dir string, newSrc func(class string) Source) (total, matched, quirks int) {
	ops := readLines(t, filepath.Join(dir, "ops.jsonl"))
	results := readLines(t, filepath.Join(dir, "results.jsonl"))
	if len(ops) != len(results) {
		t.Fatalf("%d ops, %d results", len(ops), len(results))
	}
	sources := map[string]Source{}
	srcOf := func(name string) Source {
		if s, ok := sources[name]; ok {
			return s
		}
		s := newSrc(name)
		sources[name] = s
		return s
	}
	mem := func(s Source) *memSource {
		switch x := s.(type) {
		case *memIndexed:
			return x.memSource
		case *memSource:
			return x
		}
		t.Fatalf("unexpected source %T", s)
		return nil
	}
	putter := func(s Source) func(string, *phpjson.Array) {
		switch x := s.(type) {
		case *memIndexed:
			return x.put
		case *memSource:
			return x.put
		}
		t.Fatalf("unexpected source %T", s)
		return nil
	}
	for i, line := range ops {
		v, err := phpjson.DecodeDepth(line, 1<<20)
		if err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
		op := v.(*phpjson.Array)
		coll := str(op, "collection")
		switch str(op, "op") {
		case "put":
			d, _ := op.Lookup("data")
			data, _ := d.(*phpjson.Array)
			putter(srcOf(coll))(str(op, "id"), data)
		case "delete":
			mem(srcOf(coll)).remove(str(op, "id"))
		case "putMany":
			rows, _ := op.Lookup("rows")
			for _, row := range rows.(*phpjson.Array).Values() {
				r := row.(*phpjson.Array)
				d, _ := r.Lookup("data")
				data, _ := d.(*phpjson.Array)
				putter(srcOf(coll))(str(r, "id"), data)
			}
		case "indexes":
			ix, ok := srcOf(coll).(*memIndexed)
			if !ok {
				t.Fatalf("op %d: indexes on a source without index support", i)
			}
			fields, _ := op.Lookup("fields")
			for _, f := range fields.(*phpjson.Array).Values() {
				fa := f.(*phpjson.Array)
				u, _ := fa.Lookup("unique")
				r, _ := fa.Lookup("range")
				ix.define(str(fa, "field"), u == true, r == true)
			}
		case "query":
			total++
			got, err := phpjson.Encode(runQueryOp(t, srcOf(coll), op))
			if err != nil {
				t.Fatalf("op %d: encode: %v", i, err)
			}
			want := results[i]
			if q, _ := op.Lookup("quirk"); q == "index-path" {
				// PHP's index path diverged from its scan; the scan twin's
				// result is the contract (README 8).
				twin, _ := op.Lookup("compare_with")
				want = results[twin.(int64)]
				quirks++
			}
			if bytes.Equal(got, want) {
				matched++
			} else {
				t.Errorf("op %d: %s\n got %s\nwant %s", i, line, got, want)
			}
		}
	}
	return total, matched, quirks
}

// TestReplayDocQuery replays conformance doc/query: "plain" is a
// memSource, "indexed" a memIndexed with the case's index definitions.
func TestReplayDocQuery(t *testing.T) {
	total, matched, quirks := replayCase(t, filepath.Join(corpusDir(t), "doc", "query"), func(name string) Source {
		if name == "indexed" {
			return newMemIndexed()
		}
		return newMemSource()
	})
	t.Logf("doc/query: %d of %d query ops match (%d index-path ops compared with their scan twin)", matched, total, quirks)
	if total != 146 {
		t.Errorf("expected 146 query ops, found %d", total)
	}
}

// TestReplayLogStreamQuery replays the query ops of log/stream-query against
// a memSource in SegmentedLog stream order.
func TestReplayLogStreamQuery(t *testing.T) {
	total, matched, _ := replayCase(t, filepath.Join(corpusDir(t), "log", "stream-query"), func(string) Source {
		s := newMemSource()
		s.class = "Storh\\SegmentedLogStore"
		s.logOrder = true
		s.order = []string{}
		return s
	})
	t.Logf("log/stream-query: %d of %d query ops match PHP", matched, total)
	if total != 12 {
		t.Errorf("expected 12 query ops, found %d", total)
	}
}
