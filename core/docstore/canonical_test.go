package docstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/internal/corpus"

	"github.com/storhfs/storhfs/core/phpjson"
)

// fullRead is the record reader without the canonical fast path.
func fullRead(content []byte, id string) (*phpjson.Array, error) {
	obj, err := decodeObject(content, "p")
	if err != nil {
		return nil, err
	}
	if err := checkRecordID(obj, id, false); err != nil {
		return nil, err
	}
	return recordData(obj), nil
}

// checkExportLineAgrees fails when canonicalExportLine gives a line for
// content that differs from the full reader's re-encoded line.
func checkExportLineAgrees(t *testing.T, content []byte, id string) {
	t.Helper()
	line := canonicalExportLine(content, id)
	if line == nil {
		return
	}
	data, err := fullRead(content, id)
	if err != nil {
		t.Fatalf("%q: export fast path accepts, full reader: %v", content, err)
	}
	want, err := encodeRecord(id, data)
	if err != nil || string(want) != string(line) {
		t.Fatalf("%q: export line %q, full path %q (%v)", content, line, want, err)
	}
}

func validIDString(id string) bool { return validID(id) == nil }

func canonicalSeeds(t testing.TB) []string {
	p := `{"id":"` + fuzzID + `","data":`
	seeds := []string{
		p + `{"a":1}}` + "\n", p + `{"a":1}}`, p + `[]}`, p + `{}}`, p + `"x"}`, p + `null}`,
		p + ` {"a" : [1, 2.0, -0.0, 1e400]} }`, p + `{"a":1}}}`, p + `{"a":1}` + "\n}",
		p + `{"a":1},"data":[]}`, p + `{"a":1},"id":"x"}`, p + `{"a":1}/**/}`, p + `{"a":1,}}`,
		p + `{"0":"a","1":"b"}}`, p + `{"a":"\u00e9\ud800"}}`, p + `}`, p + `1}` + "\n\n",
		p + strings.Repeat("[", 510) + strings.Repeat("]", 510) + "}",
		p + strings.Repeat("[", 511) + strings.Repeat("]", 511) + "}",
		`{"id":"` + strings.ToUpper(fuzzID) + `","data":{}}`,
		`{"id":"` + fuzzID[:35] + `","data":{}}`,
	}
	if files, err := filepath.Glob(filepath.Join(corpus.Require(t), "doc/*/before/*/data/*/*.jsonc")); err == nil {
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				seeds = append(seeds, string(b))
			}
		}
	}
	return seeds
}

func TestCanonicalExportLineAgrees(t *testing.T) {
	hits := 0
	for _, s := range canonicalSeeds(t) {
		checkExportLineAgrees(t, []byte(s), fuzzID)
		if canonicalExportLine([]byte(s), fuzzID) != nil {
			hits++
		}
	}
	if hits < 3 {
		t.Fatalf("export fast path taken for only %d seeds", hits)
	}
	canon := `{"id":"` + fuzzID + `","data":{"a":1,"b":["x"]}}`
	if line := canonicalExportLine([]byte(canon), fuzzID); string(line) != canon+"\n" {
		t.Fatalf("canonical record: export line %q", line)
	}
	float := `{"id":"` + fuzzID + `","data":{"a":1.5}}`
	if line := canonicalExportLine([]byte(float), fuzzID); string(line) != float+"\n" {
		t.Fatalf("float written as storh writes it: export line %q", line)
	}
	for _, data := range []string{`{"a":1.50}`, `{"a":1e2}`, `{"a":"\u0041"}`, `{"a": 1}`} {
		if line := canonicalExportLine([]byte(`{"id":"`+fuzzID+`","data":`+data+`}`), fuzzID); line != nil {
			t.Fatalf("data %s, which storh writes otherwise, taken by the export fast path: %q", data, line)
		}
	}
	// Another record's id in the file is never accepted for this one.
	other := strings.Replace(`{"id":"`+fuzzID+`","data":`, fuzzID[30:], "000000", 1) + `{}}`
	if line := canonicalExportLine([]byte(other), fuzzID); line != nil {
		t.Fatal("foreign id accepted")
	}
}

// FuzzCanonicalExportLine: whatever the export fast path accepts, the
// full PHP reader reads and the encoder writes as that line.
func FuzzCanonicalExportLine(f *testing.F) {
	for _, s := range canonicalSeeds(f) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		checkExportLineAgrees(t, content, fuzzID)
	})
}

// TestExportJSONLFastAndSlowPathsAgree exports a collection mixing
// canonical records with records only the full reader handles, and
// compares with lines built by Get and the encoder.
func TestExportJSONLFastAndSlowPathsAgree(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root, "c", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bodies := []string{
		`{"a":1,"b":"x"}`, `{"a":1.5}`, `{}`, `[]`, `{"0":"x"}`, `{"a":"\u00e9\/"}`,
		` {"a" : 1} `, `{"a":1,"a":2}`, `{"n":-0}`, `[1,[2,{"k":null}]]`,
	}
	var ids []string
	for i, body := range bodies {
		id := fmt.Sprintf("018fa7fc-35b8-7d0a-acf2-280fa6513%03x", i)
		content := `{"id":"` + id + `","data":` + body + "}"
		if i%2 == 0 {
			content += "\n"
		}
		if err := s.PutRaw(id, []byte(content)); err != nil {
			t.Fatalf("%s: %v", content, err)
		}
		ids = append(ids, id)
	}
	var want []byte
	for _, id := range ids {
		rec, err := s.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		line, err := encodeRecord(id, rec.Data)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, line...)
	}
	out := t.TempDir() + "/x.jsonl"
	if n, err := s.ExportJSONL(out); err != nil || n != len(ids) {
		t.Fatalf("export: %d, %v", n, err)
	}
	got, err := os.ReadFile(out)
	if err != nil || string(got) != string(want) {
		t.Fatalf("export\n%s\nwant\n%s", got, want)
	}
}
