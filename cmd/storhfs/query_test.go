package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/internal/corpus"
)

// storhfs query prints what PHP's query builder returned for every query
// of testdata/conformance-extra/doc/cli-query (equality, ranges on range
// indexes, between, prefix, ordering, limits, cursors, count, explain,
// first), run on the case's final tree.
func TestQueryMatchesPHPCase(t *testing.T) {
	dir := filepath.Join(corpus.ModuleRoot(), "testdata", "conformance-extra", "doc", "cli-query")
	if ran := checkQueryCase(t, dir); ran < 40 {
		t.Errorf("only %d of the case's queries ran through the CLI", ran)
	}
}

// The same for the queries of the corpus's doc/query case: PHP replays
// its ops up to the first write after the queries (replay.php), so its
// final tree is the one the queries saw.
func TestQueryMatchesPHPCorpusQueries(t *testing.T) {
	o := corpus.RequireOracle(t)
	src := filepath.Join(corpus.Require(t), "doc", "query", "ops.jsonl")
	content, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	sawQuery := false
	for _, line := range strings.SplitAfter(string(content), "\n") {
		isQuery := strings.HasPrefix(line, `{"op":"query"`)
		if sawQuery && !isQuery {
			break
		}
		sawQuery = sawQuery || isQuery
		ops = append(ops, line)
	}
	tmp := t.TempDir()
	opsFile := filepath.Join(tmp, "ops.jsonl")
	if err := os.WriteFile(opsFile, []byte(strings.Join(ops, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(o.PHP, o.Replay, filepath.Join(tmp, "out"), "doc", "query", opsFile)
	cmd.Env = o.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("replay.php: %v\n%s", err, out)
	}
	if ran := checkQueryCase(t, filepath.Join(tmp, "out", "doc", "query")); ran < 100 {
		t.Errorf("only %d of doc/query's queries ran through the CLI", ran)
	}
}

// checkQueryCase builds the case's expected tree, runs each of its query
// ops that `storhfs query` can express and compares the output with PHP's
// result; it returns how many ran. A query tagged with a quirk (PHP's
// indexed answer differs from its scan) is compared with the result of its
// scan twin, which is what storhfs answers (core/docstore conformance).
func checkQueryCase(t *testing.T, dir string) (ran int) {
	t.Helper()
	root := t.TempDir()
	copyExpectedTree(t, dir, root)
	ops := readLines(t, filepath.Join(dir, "ops.jsonl"))
	results := readLines(t, filepath.Join(dir, "results.jsonl"))
	sawQuery := false
	for i, line := range ops {
		var op queryOp
		if err := json.Unmarshal([]byte(line), &op); err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
		if op.Op != "query" {
			if sawQuery && !readOnlyOps[op.Op] {
				t.Fatalf("op %d (%s) changes the collection after its queries: the final tree is not what they saw", i, op.Op)
			}
			continue
		}
		sawQuery = true
		want := results[i]
		if op.Quirk != "" {
			if op.CompareWith == nil {
				continue
			}
			want = results[*op.CompareWith]
		}
		args, ok := op.cliArgs()
		if !ok {
			continue
		}
		r := runCLI(t, "", append(append([]string{"query"}, args...), root, op.Collection)...)
		if msg, failed := phpError(want); failed {
			if r.code == 0 || r.stdout != "" {
				t.Errorf("op %d %s\nstorhfs %q: exit %d, stdout %q; PHP failed: %s", i, line, args, r.code, r.stdout, msg)
			}
			ran++
			continue
		}
		if r.code != 0 || r.stderr != "" {
			t.Errorf("op %d %s\nstorhfs %q: exit %d, stderr %q", i, line, args, r.code, r.stderr)
			continue
		}
		if got := op.asResult(t, r.stdout); got != want {
			t.Errorf("op %d %s\nstorhfs %q printed (as PHP's result):\n%s\nPHP's result:\n%s", i, line, args, got, want)
		}
		ran++
	}
	t.Logf("%s: %d queries compared", filepath.Base(dir), ran)
	return ran
}

// readOnlyOps are the corpus ops that leave a DocStore's records and
// indexes as they are.
var readOnlyOps = map[string]bool{"query": true, "get": true, "stream": true, "stats": true, "verify": true, "health": true, "close": true, "open": true}

// queryOp is a corpus "query" op (testdata/conformance/README.md).
type queryOp struct {
	Op          string                       `json:"op"`
	Collection  string                       `json:"collection"`
	Build       []map[string]json.RawMessage `json:"build"`
	Call        string                       `json:"call"`
	Quirk       string                       `json:"quirk"`
	CompareWith *int                         `json:"compare_with"`
}

// cliArgs are the `storhfs query` flags for the op; ok=false when the CLI
// cannot express it (orWhere, andWhere, page, an order direction PHP
// refuses, a field the --where syntax cannot name).
func (op queryOp) cliArgs() (args []string, ok bool) {
	for _, step := range op.Build {
		for name, raw := range step {
			var list []json.RawMessage
			if name != "limit" && name != "cursor" && json.Unmarshal(raw, &list) != nil {
				return nil, false
			}
			switch name {
			case "where":
				expr, ok := whereExpr(list)
				if !ok {
					return nil, false
				}
				args = append(args, "--where", expr)
			case "orderBy":
				var field, dir string
				json.Unmarshal(list[0], &field)
				if len(list) > 1 {
					json.Unmarshal(list[1], &dir)
				}
				args = append(args, "--order", field)
				switch strings.ToLower(dir) {
				case "desc":
					args = append(args, "--desc")
				case "", "asc":
				default:
					return nil, false
				}
			case "limit":
				args = append(args, "--limit", string(raw))
			case "cursor":
				var id string
				json.Unmarshal(raw, &id)
				args = append(args, "--after", id)
			default:
				return nil, false
			}
		}
	}
	switch op.Call {
	case "count":
		args = append(args, "--count")
	case "explain":
		args = append(args, "--explain")
	case "first":
		args = append(args, "--limit", "1")
	case "get":
	default:
		return nil, false
	}
	return args, true
}

// symbols are the --where spellings of storh's comparison operators.
var symbols = map[string]string{"eq": "=", "neq": "!=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}

// whereExpr writes a corpus where [field, op, operands...] as a --where
// expression: symbols for comparisons, words for the rest; a string
// operand is written bare when that reads back as the same string.
func whereExpr(w []json.RawMessage) (string, bool) {
	var field, op string
	if len(w) < 2 || json.Unmarshal(w[0], &field) != nil || json.Unmarshal(w[1], &op) != nil ||
		field == "" || strings.ContainsAny(field, "=!<> \t") {
		return "", false
	}
	operands := w[2:]
	if sym, ok := symbols[op]; ok && len(operands) == 1 {
		return field + sym + operandText(operands[0]), true
	}
	switch {
	case (op == "exists" || op == "missing") && len(operands) == 0:
		return field + " " + op, true
	case op == "between" && len(operands) == 2:
		return field + " between [" + string(operands[0]) + "," + string(operands[1]) + "]", true
	case (op == "in" || op == "notIn" || op == "prefix") && len(operands) == 1:
		return field + " " + op + " " + operandText(operands[0]), true
	}
	return "", false
}

// operandText is raw JSON, or the string itself where it reads back as
// that string (not empty, no surrounding space, not JSON itself).
func operandText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil || s == "" || strings.TrimSpace(s) != s {
		return string(raw)
	}
	if _, err := phpjson.Decode([]byte(s)); err == nil {
		return string(raw)
	}
	return s
}

// asResult turns the CLI's output into the corpus encoding of the op's
// result: get a list of the records, first a record or null, count the
// number, explain the compact JSON.
func (op queryOp) asResult(t *testing.T, out string) string {
	t.Helper()
	switch op.Call {
	case "count":
		return strings.TrimSuffix(out, "\n")
	case "first":
		if out == "" {
			return "null"
		}
		return strings.TrimSuffix(out, "\n")
	case "explain":
		v, err := phpjson.Decode([]byte(out))
		if err != nil {
			t.Fatalf("explain printed %q: %v", out, err)
		}
		compact, err := phpjson.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(compact)
	}
	return "[" + strings.Join(strings.Split(strings.TrimSuffix(out, "\n"), "\n"), ",") + "]"
}

// phpError returns the message of a result that is PHP's failure.
func phpError(result string) (string, bool) {
	var e struct {
		Error *string `json:"error"`
	}
	if !strings.HasPrefix(result, `{"error":`) || json.Unmarshal([]byte(result), &e) != nil || e.Error == nil {
		return "", false
	}
	return *e.Error, true
}

// copyExpectedTree makes root the case's final tree: every directory its
// case.json lists (empty ones are not in git) and every file of expected/.
func copyExpectedTree(t *testing.T, dir, root string) {
	t.Helper()
	var spec struct {
		Expected struct {
			Dirs []string `json:"dirs"`
		} `json:"expected"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err == nil {
		err = json.Unmarshal(b, &spec)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range spec.Expected.Dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(dir, "expected")
	err = filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, content, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readLines returns the file's lines without their "\n".
func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// Bad input to query: one clear line naming the flag or argument, exit 2
// for a malformed query and 1 for a missing or wrong collection.
func TestQueryCommandErrors(t *testing.T) {
	root := t.TempDir()
	makeDoc(t, root)
	makeLog(t, root)
	makeQueue(t, root)
	for _, tc := range []struct {
		name      string
		args      []string
		code      int
		stderrHas string
	}{
		{"unknown operator", []string{"--where", "title like t"}, exitUsage, `--where "title like t": unknown operator "like"`},
		{"no operator", []string{"--where", "title"}, exitUsage, `--where "title": want FIELD OP VALUE`},
		{"no field", []string{"--where", ">=3"}, exitUsage, `missing FIELD`},
		{"no value", []string{"--where", "title="}, exitUsage, `missing VALUE after eq`},
		{"broken between", []string{"--where", "n between [1,"}, exitUsage, `between takes a JSON pair [LOW,HIGH], got [1,`},
		{"between of three", []string{"--where", "n between [1,2,3]"}, exitUsage, `between takes a JSON pair`},
		{"in without a list", []string{"--where", "title in t"}, exitUsage, `in takes a JSON list`},
		{"exists with a value", []string{"--where", "title exists 1"}, exitUsage, `exists takes no value`},
		{"blank field", []string{"--where", "  =x"}, exitUsage, `missing FIELD`},
		{"limit 0", []string{"--limit", "0"}, exitUsage, `--limit 0: Query limit must be at least 1.`},
		{"bad cursor", []string{"--after", "nope"}, exitUsage, `--after "nope": Invalid UUIDv7 value.`},
		{"count and explain", []string{"--count", "--explain"}, exitUsage, `--count and --explain exclude each other`},
		{"desc alone", []string{"--desc"}, exitUsage, `--desc needs --order FIELD`},
	} {
		r := runCLI(t, "", append(append([]string{"query"}, tc.args...), root, "pages")...)
		if r.code != tc.code || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tc.stderrHas) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", tc.name, r.code, r.stdout, r.stderr, tc.code, tc.stderrHas)
		}
	}
	for coll, want := range map[string]string{
		"pagse":  "Collection does not exist: " + root + "/pagse",
		"events": root + "/events is a SegmentedLog collection, not a DocStore: storhfs query works on DocStore collections only",
		"jobs":   root + "/jobs is a Queue collection, not a DocStore",
	} {
		r := runCLI(t, "", "query", root, coll)
		if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, want) {
			t.Errorf("query %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", coll, r.code, r.stdout, r.stderr, want)
		}
	}
	if r := runCLI(t, "", "query", root); r.code != exitUsage || !strings.Contains(r.stderr, "need ROOT and COLLECTION") {
		t.Errorf("query without COLLECTION: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, "", "query", root, "pages", "--count"); r.code != exitUsage || !strings.Contains(r.stderr, "flag --count after ROOT: flags go before ROOT") {
		t.Errorf("query with a flag after ROOT: exit %d, stderr %q", r.code, r.stderr)
	}
}

// The --where values: bare text is a string, JSON is typed, so a number
// never matches its string and a quoted number is a string.
func TestQueryWhereValues(t *testing.T) {
	root := t.TempDir()
	makeDoc(t, root) // titles "t-1", "t-2"; city "Zürich"
	s, err := docstore.Open(root, "pages", docstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(obj("n", int64(10), "s", "10", "ok", true), idC); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		where string
		want  int
	}{
		{"title=t-1", 1},
		{`title="t-1"`, 1},
		{"title = t-2", 1},
		{"title != t-2", 2}, // a missing field is "not equal", as in storh
		{"city=Zürich", 2},
		{"title prefix t-", 2},
		{`title in ["t-1","x"]`, 1},
		{"title notIn [\"t-1\"]", 2},
		{"city exists", 2},
		{"nothing missing", 3},
		{"title>t-1", 1},
		{`title between ["t-0","t-9"]`, 2},
		{"title=1", 0},
		{"n=10", 1},
		{"n>=10", 1},
		{"n=10.0", 0},
		{`n="10"`, 0},
		{"s=10", 0},
		{`s="10"`, 1},
		{"ok=true", 1},
		{`ok="true"`, 0},
		{"n<-1", 0},
	} {
		out := mustRun(t, "query", "--where", tc.where, "--count", root, "pages")
		if out != strconv.Itoa(tc.want)+"\n" {
			t.Errorf("--where %q --count printed %q, want %d", tc.where, out, tc.want)
		}
	}
}
