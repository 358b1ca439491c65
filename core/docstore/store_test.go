package docstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/internal/treetest"
)

func TestPutGetCanonicalBytes(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	data := obj("title", "Héllo/€ \"q\"", "f", 1.0, "n", 7, "e", phpjson.NewArray(0), "ls", "\u2028")
	rec, err := s.Put(data, id1)
	if err != nil {
		t.Fatalf("put: %v", err)
	}
	if rec.ID != id1 || rec.Data != data {
		t.Fatalf("put returned %+v", rec)
	}
	got, err := os.ReadFile(root + "/pages/data/88/" + id1 + ".jsonc")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + id1 + `","data":{"title":"Héllo/€ \"q\"","f":1.0,"n":7,"e":[],"ls":"\u2028"}}` + "\n"
	if string(got) != want {
		t.Fatalf("file bytes\n got %q\nwant %q", got, want)
	}
	r, err := s.Get(id1)
	if err != nil || r == nil {
		t.Fatalf("get: %v %v", r, err)
	}
	if mustJSON(t, r.Data) != mustJSON(t, data) {
		t.Fatalf("get data %s", mustJSON(t, r.Data))
	}
	if r, err := s.Get(id2); r != nil || err != nil {
		t.Fatalf("get missing: %v %v", r, err)
	}
	// generated id
	rec, err = s.Put(obj("x", 1), "")
	if err != nil || !validIDForTest(rec.ID) {
		t.Fatalf("generated put: %+v %v", rec, err)
	}
}

func validIDForTest(id string) bool { return validID(id) == nil }

func TestDeleteAndMissing(t *testing.T) {
	s := openStore(t, t.TempDir())
	if err := s.Delete(id1); err != nil {
		t.Fatalf("delete missing: %v", err)
	}
	if _, err := s.Put(obj("a", 1), id1); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(id1); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Get(id1); r != nil {
		t.Fatal("record survived delete")
	}
}

var hostileIDs = []string{
	"", "../x", "../../etc/passwd", id1 + "x", id1[:35], "018bcfe5-6800-6000-8000-000000000000",
	"018fbbf0-da38-75fc-c043-8814e84c4fdc", id1 + "\n", "018fbbf0/da38-75fc-b043-8814e84c4fdc",
	"g18fbbf0-da38-75fc-b043-8814e84c4fdc", "018fbbf0-da38-75fc-b043-8814e84c4fd\x00",
}

func TestHostileIDsChangeNothing(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	if _, err := s.Put(obj("a", 1), id1); err != nil {
		t.Fatal(err)
	}
	before := treetest.Snapshot(t, root)
	for _, id := range hostileIDs {
		checks := map[string]error{}
		if id != "" { // Put("") generates an id
			_, checks["put"] = s.Put(obj("a", 1), id)
		}
		checks["putraw"] = s.PutRaw(id, []byte(`{"id":"`+id+`","data":[]}`))
		_, checks["get"] = s.Get(id)
		checks["delete"] = s.Delete(id)
		_, checks["stat"] = s.StatRecord(id)
		_, checks["open"] = s.OpenRecord(id)
		checks["times"] = s.SetRecordTimes(id, time.Now(), time.Now())
		for op, err := range checks {
			if !errors.Is(err, ErrInvalidID) {
				t.Errorf("%s(%q): got %v, want ErrInvalidID", op, id, err)
			}
		}
		if err := s.PutRaw(id, nil); err == nil || !strings.Contains(err.Error(), id) {
			t.Errorf("PutRaw(%q) error %v does not name the id", id, err)
		}
	}
	treetest.AssertSame(t, "the operation", before, treetest.Snapshot(t, root))
}

func TestUppercaseIDIsOwnRecord(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	upper := strings.ToUpper(id1)
	if _, err := s.Put(obj("v", "lower"), id1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(obj("v", "upper"), upper); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root + "/pages/data/88/" + upper + ".jsonc"); err != nil {
		t.Fatalf("uppercase bucket: %v", err)
	}
	r, _ := s.Get(upper)
	if v, _ := r.Data.Lookup("v"); v != "upper" {
		t.Fatalf("upper record %v", v)
	}
	var ids []string
	_ = s.WalkIDs("", func(id string) error { ids = append(ids, id); return nil })
	if len(ids) != 2 || ids[0] != upper || ids[1] != id1 {
		t.Fatalf("walk order %v", ids)
	}
}

// Record files as people or crashes leave them: get must report a clear
// error naming the problem, never panic.
func TestCorruptRecordFiles(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	cases := []struct {
		name, content, want string
	}{
		{"empty", "", msgNotObject},
		{"broken", "{ broken", msgNotObject},
		{"truncated", `{"id":"` + id1 + `","data":{"a":`, msgNotObject},
		{"bad json in braces", `{"id":"` + id1 + `","data":{"a":}}`, "Invalid JSONC storage file: "},
		{"bom", "\xef\xbb\xbf{\"id\":\"" + id1 + "\",\"data\":[]}", msgNotObject},
		{"list", "[1]", msgNotObject},
		{"empty object", "{}", msgInvalidID},
		{"numeric key", `{"5":1,"id":"` + id1 + `"}`, msgNotObject},
		{"other id", `{"id":"` + id2 + `","data":[]}`, msgIDMismatch},
		{"upper id", `{"id":"` + strings.ToUpper(id1) + `","data":[]}`, msgIDMismatch},
		{"bad id", `{"id":"x","data":[]}`, msgInvalidID},
		{"deep", `{"id":"` + id1 + `","data":` + deep + `}`, "Invalid JSONC storage file: "},
		{"bad utf8", "{\"id\":\"" + id1 + "\",\"data\":\"\xff\"}", "Invalid JSONC storage file: "},
		{"form feed", "\f{\"id\":\"" + id1 + "\",\"data\":[]}", msgNotObject},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			s := openStore(t, root)
			if err := os.MkdirAll(root+"/pages/data/88", 0o777); err != nil {
				t.Fatal(err)
			}
			path := root + "/pages/data/88/" + id1 + ".jsonc"
			if err := os.WriteFile(path, []byte(c.content), 0o666); err != nil {
				t.Fatal(err)
			}
			r, err := s.Get(id1)
			if err == nil || r != nil {
				t.Fatalf("get: %v %v", r, err)
			}
			if !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, ErrInvalidRecord) {
				t.Fatalf("error %q (%T), want prefix %q and ErrInvalidRecord", err, err, c.want)
			}
			if strings.HasPrefix(c.want, "Invalid JSONC") && !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q lacks the path", err)
			}
			st, err := s.Stats()
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := st.Lookup("corrupt"); v != int64(1) {
				t.Fatalf("stats %s", mustJSON(t, st))
			}
		})
	}
}

func TestAcceptedJSONCFiles(t *testing.T) {
	cases := map[string]string{
		"comments":  "  // line\n{\"id\": \"" + id1 + "\", /* note */ \"data\": {\"items\": [1,2,],},}",
		"key order": `{ "data" : {"b":"\u00e9", "x":1e2}, "id":"` + id1 + `" }`,
		"no data":   `{"id":"` + id1 + `"}`,
		"odd data":  `{"id":"` + id1 + `","data":"oops"}`,
		"crlf":      "{\r\n\"id\":\"" + id1 + "\",\r\n\"data\":{\"a\":1}\r\n}\r\n",
		"nul lead":  "\x00{\"id\":\"" + id1 + "\",\"data\":[]}",
	}
	// PHP reads these too, but as empty data: PutRaw refuses them
	// (TestPutRawRefusesForeignShapes), so they are written directly.
	readOnly := map[string]bool{"no data": true, "odd data": true}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			s := openStore(t, root)
			if readOnly[name] {
				if err := os.MkdirAll(filepath.Dir(s.RecordPath(id1)), 0o777); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(s.RecordPath(id1), []byte(content), 0o666); err != nil {
					t.Fatal(err)
				}
			} else if err := s.PutRaw(id1, []byte(content)); err != nil {
				t.Fatalf("PutRaw: %v", err)
			}
			got, _ := os.ReadFile(s.RecordPath(id1))
			if string(got) != content {
				t.Fatalf("not verbatim: %q", got)
			}
			if r, err := s.Get(id1); err != nil || r == nil {
				t.Fatalf("get: %v %v", r, err)
			}
		})
	}
}

func TestPutRawRejectsChangeNothing(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	if _, err := s.Put(obj("a", 1), id1); err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	cases := []struct {
		name    string
		content string
		kind    error
	}{
		{"empty", "", ErrInvalidRecord},
		{"truncated", `{"id":"` + id1 + `","data":{`, ErrInvalidRecord},
		{"bom", "\xef\xbb\xbf{\"id\":\"" + id1 + "\"}", ErrInvalidRecord},
		{"other id", `{"id":"` + id2 + `"}`, ErrIDMismatch},
		{"upper id", `{"id":"` + strings.ToUpper(id1) + `"}`, ErrIDMismatch},
		{"no id", `{"data":[]}`, ErrInvalidRecord},
		{"deep", `{"id":"` + id1 + `","data":` + deep + `}`, ErrInvalidRecord},
		{"oversized", `{"id":"` + id1 + `","data":"` + strings.Repeat("x", MaxRecordBytes) + `"}`, ErrInvalidRecord},
	}
	before := treetest.Snapshot(t, root)
	for _, c := range cases {
		err := s.PutRaw(id1, []byte(c.content))
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.kind)
		}
		if err != nil && !strings.HasPrefix(err.Error(), id1+": ") {
			t.Errorf("%s: error %q does not start with the id", c.name, err)
		}
	}
	treetest.AssertSame(t, "the operation", before, treetest.Snapshot(t, root))
}

func TestUniqueViolationWritesNothing(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	if err := s.SyncIndexes([]docindex.Definition{{Field: "slug", Unique: true}, {Field: "kind"}}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(obj("slug", "home", "kind", "page"), id1); err != nil {
		t.Fatal(err)
	}
	before := treetest.Snapshot(t, root)
	_, err := s.Put(obj("slug", "home", "kind", "post"), id2)
	if !errors.Is(err, ErrUniqueViolation) || err.Error() != "Unique index violation on field: slug" {
		t.Fatalf("put: %v", err)
	}
	err = s.PutRaw(id2, []byte(`{"id":"`+id2+`","data":{"slug":"home"}}`))
	if !errors.Is(err, ErrUniqueViolation) || !strings.Contains(err.Error(), id2) {
		t.Fatalf("PutRaw: %v", err)
	}
	treetest.AssertSame(t, "the operation", before, treetest.Snapshot(t, root))
	// re-putting the owner with the same value is fine, verbatim
	raw := "{\"id\":\"" + id1 + "\", // me\n \"data\":{\"slug\":\"home\",\"kind\":\"note\"}}"
	if err := s.PutRaw(id1, []byte(raw)); err != nil {
		t.Fatal(err)
	}
	ids, _, err := s.idx.EqualityIDs("kind", "note")
	if err != nil || len(ids) != 1 || ids[0] != id1 {
		t.Fatalf("index after PutRaw: %v %v", ids, err)
	}
	v, err := s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := v.Lookup("ok"); ok != true {
		t.Fatalf("verify %s", mustJSON(t, v))
	}
}

func TestStreamFilters(t *testing.T) {
	s := openStore(t, t.TempDir())
	rows := []phpjson.Value{
		obj("id", id1, "data", obj("k", "a", "n", 1)),
		obj("id", id2, "data", obj("k", "b", "n", 1.0)),
		obj("id", id3, "data", obj("k", "a", "n", nil)),
	}
	if _, err := s.PutMany(rows); err != nil {
		t.Fatal(err)
	}
	collect := func(q RecordQuery) []string {
		var ids []string
		if err := s.Stream(q, func(r Record) error { ids = append(ids, r.ID); return nil }); err != nil {
			t.Fatalf("stream: %v", err)
		}
		return ids
	}
	check := func(name string, got []string, want ...string) {
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: got %v want %v", name, got, want)
		}
	}
	check("all", collect(RecordQuery{}), id1, id2, id3)
	check("after", collect(RecordQuery{After: id1}), id2, id3)
	check("limit", collect(RecordQuery{Limit: 2}), id1, id2)
	check("int", collect(RecordQuery{Where: []WhereEqual{{"n", int64(1)}}}), id1)
	check("float", collect(RecordQuery{Where: []WhereEqual{{"n", 1.0}}}), id2)
	check("null", collect(RecordQuery{Where: []WhereEqual{{"n", nil}}}), id3)
	var q RecordQuery
	if err := q.SetLimit(0); err == nil || err.Error() != msgQueryLimit {
		t.Errorf("limit 0: %v", err)
	}
	if err := q.AddWhereEqual(" ", int64(1)); err == nil || err.Error() != msgQueryField {
		t.Errorf("empty field: %v", err)
	}
	if err := q.AddWhereEqual("k", phpjson.NewArray(0)); err == nil || err.Error() != msgQueryValue {
		t.Errorf("array value: %v", err)
	}
	if err := s.Stream(RecordQuery{After: "bogus"}, func(Record) error { return nil }); !errors.Is(err, ErrInvalidID) {
		t.Errorf("bad after: %v", err)
	}
}

func TestBatchNotAtomic(t *testing.T) {
	s := openStore(t, t.TempDir())
	_, err := s.PutMany([]phpjson.Value{
		obj("id", id1, "title", "whole row"),
		obj("id", "bad", "data", obj()),
	})
	if !errors.Is(err, ErrInvalidID) {
		t.Fatalf("putMany: %v", err)
	}
	r, _ := s.Get(id1)
	if r == nil || mustJSON(t, r.Data) != `{"id":"`+id1+`","title":"whole row"}` {
		t.Fatalf("first row: %+v", r)
	}
}

func TestJSONLRoundTrip(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	in := "{ \"data\" : {\"b\":\"\\u00e9\", \"x\":1e2}, \"id\":\"" + id1 + "\" }   \r\n" +
		"{\"id\":\"" + id2 + "\",\"title\":\"no data key\"}\n   \n" +
		"[1,2]\n"
	if err := os.WriteFile(root+"/in.jsonl", []byte(in), 0o666); err != nil {
		t.Fatal(err)
	}
	n, err := s.ImportJSONL(root + "/in.jsonl")
	if err != nil || n != 3 {
		t.Fatalf("import: %d %v", n, err)
	}
	got, _ := os.ReadFile(s.RecordPath(id1))
	if string(got) != "{ \"data\" : {\"b\":\"\\u00e9\", \"x\":1e2}, \"id\":\""+id1+"\" }   \n" {
		t.Fatalf("form A not verbatim: %q", got)
	}
	n, err = s.ExportJSONL(root + "/out/x.jsonl")
	if err != nil || n != 3 {
		t.Fatalf("export: %d %v", n, err)
	}
	out, _ := os.ReadFile(root + "/out/x.jsonl")
	if !strings.HasPrefix(string(out), `{"id":"`+id1+`","data":{"b":"é","x":100.0}}`+"\n") {
		t.Fatalf("export: %q", out)
	}
	if _, err := s.ImportJSONL(root + "/missing.jsonl"); err == nil || err.Error() != msgImportOpen+root+"/missing.jsonl" {
		t.Fatalf("missing import: %v", err)
	}
}

func TestRepairQuarantines(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	if _, err := s.Put(obj("a", 1), id1); err != nil {
		t.Fatal(err)
	}
	bad := s.RecordPath(id2)
	_ = os.MkdirAll(bad[:strings.LastIndex(bad, "/")], 0o777)
	if err := os.WriteFile(bad, []byte("{ broken"), 0o666); err != nil {
		t.Fatal(err)
	}
	res, err := s.Repair()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ok":true,"quarantined":1,"reindexed":{"fields":0,"entries":1}}`
	if mustJSON(t, res) != want {
		t.Fatalf("repair %s", mustJSON(t, res))
	}
	if b, err := os.ReadFile(root + "/pages/.storh/corrupt/" + id2 + ".jsonc"); err != nil || string(b) != "{ broken" {
		t.Fatalf("quarantine: %q %v", b, err)
	}
}

func TestMountHelpers(t *testing.T) {
	root := t.TempDir()
	if err := Create(root, "notes"); err != nil {
		t.Fatal(err)
	}
	if !IsCollection(root+"/notes") || IsCollection(root) {
		t.Fatal("IsCollection")
	}
	s, err := Open(root, "notes", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(obj("a", 1), id1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StatRecord(id2); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("stat missing: %v", err)
	}
	mt := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.SetRecordTimes(id1, mt, mt); err != nil {
		t.Fatal(err)
	}
	if fi, err := s.StatRecord(id1); err != nil || !fi.ModTime().Equal(mt) {
		t.Fatalf("stat: %v %v", fi, err)
	}
	if err := RemoveEmpty(root, "notes"); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("remove non-empty: %v", err)
	}
	if err := s.Delete(id1); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if err := RemoveEmpty(root, "notes"); err != nil {
		t.Fatalf("remove empty: %v", err)
	}
	if _, err := os.Stat(root + "/notes"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("collection still there: %v", err)
	}
}

func TestReadOnlyStore(t *testing.T) {
	root := t.TempDir()
	w := openStore(t, root)
	if _, err := w.Put(obj("a", 1), id1); err != nil {
		t.Fatal(err)
	}
	before := treetest.Snapshot(t, root)
	s, err := Open(root, "pages", Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r, err := s.Get(id1); err != nil || r == nil {
		t.Fatalf("get: %v", err)
	}
	if _, err := s.Put(obj("a", 2), id1); !errors.Is(err, ErrReadOnly) || !errors.Is(err, syscall.EROFS) {
		t.Fatalf("put: %v", err)
	}
	if err := s.Delete(id1); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("delete: %v", err)
	}
	treetest.AssertSame(t, "the operation", before, treetest.Snapshot(t, root))
	if _, err := Open(root, "absent", Options{ReadOnly: true}); err != nil {
		t.Fatalf("open absent read-only: %v", err)
	}
	if _, err := os.Stat(root + "/absent"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("read-only open created the collection")
	}
}

// The mount can fix a corrupt record by rewriting it, even with indexes
// active (PHP's put would refuse: it reads the old record first).
func TestPutRawReplacesCorruptRecord(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	if err := s.SyncIndexes([]docindex.Definition{{Field: "kind"}}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(obj("kind", "page"), id1); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.RecordPath(id1), []byte("{ broken"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(obj("kind", "post"), id1); err == nil || err.Error() != msgNotObject {
		t.Fatalf("Put over corrupt: %v", err)
	}
	if err := s.PutRaw(id1, []byte(`{"id":"`+id1+`","data":{"kind":"post"}}`)); err != nil {
		t.Fatalf("PutRaw over corrupt: %v", err)
	}
	ids, _, err := s.idx.EqualityIDs("kind", "post")
	if err != nil || len(ids) != 1 {
		t.Fatalf("index: %v %v", ids, err)
	}
}

func TestJSONCInlineCommentJoinsDigits(t *testing.T) {
	s := openStore(t, t.TempDir())
	if err := s.PutRaw(id1, []byte(`{"id":"`+id1+`","data":{"n":1/**/2,"l":[,]}}`)); err != nil {
		t.Fatal(err)
	}
	r, err := s.Get(id1)
	if err != nil || mustJSON(t, r.Data) != `{"n":12,"l":[]}` {
		t.Fatalf("get: %v %v", r, err)
	}
}
