package docindex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/internal/corpus"

	"github.com/storhfs/storhfs/core/phpjson"
)

func str(a *phpjson.Array, key string) string {
	s, _ := lookupString(a, key)
	return s
}

// expectedTree loads a conformance case's expected files below prefix plus
// its directory list (git keeps no empty directories).
func expectedTree(t *testing.T, caseDir, prefix string) map[string][]byte {
	raw, err := os.ReadFile(filepath.Join(caseDir, "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Expected struct {
			Dirs []string `json:"dirs"`
		} `json:"expected"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	want := treeFiles(t, filepath.Join(caseDir, "expected", prefix))
	for _, d := range meta.Expected.Dirs {
		if rel, ok := strings.CutPrefix(d, prefix+"/"); ok {
			want[rel+"/"] = nil
		}
	}
	return want
}

// TestConformanceIndexMaintenance replays doc/index-maintenance through a
// minimal store and requires PHP's index files byte for byte, PHP's
// unique-violation errors, verify() errors and reindex counts, and the ids
// the index lookups give for the case's queries.
func TestConformanceIndexMaintenance(t *testing.T) {
	replayIndexCase(t, "index-maintenance", "pages")
}

// TestConformanceQueryIndexed replays the writes of doc/query on its
// indexed collection (indexes defined while empty: only delta files).
func TestConformanceQueryIndexed(t *testing.T) {
	replayIndexCase(t, "query", "indexed")
}

// replayIndexCase replays the index-relevant ops of one doc case on one
// collection and compares that collection's .storh/indexes tree.
func replayIndexCase(t *testing.T, caseName, collection string) {
	corpus := corpus.Require(t)
	caseDir := filepath.Join(corpus, "doc", caseName)
	ops := readJSONL(t, filepath.Join(caseDir, "ops.jsonl"))
	results := readJSONL(t, filepath.Join(caseDir, "results.jsonl"))
	root := t.TempDir()
	s := newMiniStore(t, root+"/"+collection)

	for i, opv := range ops {
		op := opv.(*phpjson.Array)
		res := results[i]
		if str(op, "collection") != collection {
			continue
		}
		wantErr := ""
		if r, ok := res.(*phpjson.Array); ok {
			wantErr = str(r, "error")
		}
		checkErr := func(err error) {
			t.Helper()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != wantErr {
				t.Errorf("op %d (%s): error %q, want %q", i, str(op, "op"), got, wantErr)
			}
		}
		switch str(op, "op") {
		case "put":
			d, _ := op.Lookup("data")
			checkErr(s.put(str(op, "id"), d.(*phpjson.Array)))
		case "putMany":
			rows, _ := lookupArray(op, "rows")
			for _, row := range rows.Values() {
				r := row.(*phpjson.Array)
				d, _ := r.Lookup("data")
				if err := s.put(str(r, "id"), d.(*phpjson.Array)); err != nil {
					t.Fatalf("op %d: %v", i, err)
				}
			}
		case "delete":
			checkErr(s.delete(str(op, "id")))
		case "indexes":
			fields, _ := lookupArray(op, "fields")
			var defs []Definition
			for _, f := range fields.Values() {
				fa := f.(*phpjson.Array)
				defs = append(defs, Definition{Field: str(fa, "field"), Unique: isTrue(fa, "unique"), Range: isTrue(fa, "range")})
			}
			rebuild := true
			if v, ok := op.Lookup("rebuild"); ok {
				rebuild = v.(bool)
			}
			if err := s.m.Define(defs); err != nil {
				t.Fatal(err)
			}
			checkErr(s.m.Sync(rebuild, s.source()))
		case "reindex":
			if err := s.m.Reload(); err != nil {
				t.Fatal(err)
			}
			fields, entries, err := s.m.Rebuild(s.source())
			checkErr(err)
			r := res.(*phpjson.Array)
			if f, _ := r.Lookup("fields"); f != int64(fields) {
				t.Errorf("op %d: fields %d, want %v", i, fields, f)
			}
			if e, _ := r.Lookup("entries"); e != int64(entries) {
				t.Errorf("op %d: entries %d, want %v", i, entries, e)
			}
		case "verify":
			rep, err := s.m.Verify(s.source())
			if err != nil {
				t.Fatal(err)
			}
			r := res.(*phpjson.Array)
			want, _ := lookupArray(r, "errors")
			var wantList []string
			for _, e := range want.Values() {
				wantList = append(wantList, e.(string))
			}
			if strings.Join(rep.Errors, "\n") != strings.Join(wantList, "\n") {
				t.Errorf("op %d verify errors:\n got %q\nwant %q", i, rep.Errors, wantList)
			}
		case "query":
			checkQuery(t, i, s.m, op, res)
		}
	}

	got := treeFiles(t, root+"/"+collection+"/.storh/indexes")
	compareTrees(t, got, expectedTree(t, caseDir, collection+"/.storh/indexes"))
}

// checkQuery answers the case's single-group queries from the index alone
// and compares the ids with PHP's result (exact here: no stale entries).
func checkQuery(t *testing.T, i int, m *Manager, op *phpjson.Array, res phpjson.Value) {
	t.Helper()
	build, _ := lookupArray(op, "build")
	type cond struct {
		field, op string
		operand   phpjson.Value
	}
	var conds []cond
	for _, step := range build.Values() {
		w, ok := lookupArray(step.(*phpjson.Array), "where")
		if !ok {
			return
		}
		vals := w.Values()
		if len(vals) != 3 {
			return
		}
		if _, ok := m.Definition(vals[0].(string)); !ok {
			return // e.g. the direct id path
		}
		conds = append(conds, cond{vals[0].(string), vals[1].(string), vals[2]})
	}
	if r, ok := res.(*phpjson.Array); ok && !r.IsList() {
		return // an error result
	}
	var ids []string
	var err error
	switch {
	case len(conds) == 1 && conds[0].op == "eq":
		ids, _, err = m.EqualityIDs(conds[0].field, conds[0].operand)
	case len(conds) == 1 && conds[0].op == "in":
		seen := map[string]bool{}
		for _, v := range conds[0].operand.(*phpjson.Array).Values() {
			part, _, perr := m.EqualityIDs(conds[0].field, v)
			if perr != nil {
				err = perr
			}
			for _, id := range part {
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		sort.Strings(ids)
	case len(conds) == 2 && conds[0].op == "eq" && conds[1].op == "eq":
		ids, err = compoundIDs(m, conds[0].field, conds[0].operand, conds[1].field, conds[1].operand)
	default:
		return // other shapes are the query engine's business
	}
	if err != nil {
		t.Fatalf("op %d: %v", i, err)
	}
	switch str(op, "call") {
	case "count":
		var n int64
		var indexed bool
		switch {
		case len(conds) == 1 && conds[0].op == "eq":
			n, indexed, err = m.EqualityCount(conds[0].field, conds[0].operand)
		case len(conds) == 2:
			n, indexed, err = m.CompoundCount(conds[0].field, conds[0].operand, conds[1].field, conds[1].operand)
		default:
			n, indexed = int64(len(ids)), true
		}
		if err != nil || !indexed || n != res.(int64) {
			t.Errorf("op %d: count %d (indexed %v, %v), want %v", i, n, indexed, err, res)
		}
		return
	case "get":
	default:
		return
	}
	var want []string
	for _, r := range res.(*phpjson.Array).Values() {
		want = append(want, str(r.(*phpjson.Array), "id"))
	}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("op %d: index ids %v, want %v", i, ids, want)
	}
}

// compoundIDs is PHP's compound lookup: the raw-scanned ids of the
// automatic compound entry (CompoundCount's applicability rule).
func compoundIDs(m *Manager, f1 string, v1 phpjson.Value, f2 string, v2 phpjson.Value) ([]string, error) {
	path, ck, ok, err := m.compoundLookup(f1, v1, f2, v2)
	if err != nil || !ok {
		return nil, err
	}
	return rawEntryIDs(path, ck)
}
