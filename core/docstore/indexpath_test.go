package docstore

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/query"
)

// indexedStore writes n records directly (kind k<i%3>, tag t<i%5>, z a
// float zero of alternating sign on even i) and builds the indexes.
func indexedStore(t *testing.T, n int) (*Store, []string) {
	t.Helper()
	root := t.TempDir()
	s := openStore(t, root)
	ids := sequentialIDs(t, n)
	for i, id := range ids {
		data := obj("kind", fmt.Sprintf("k%d", i%3), "tag", fmt.Sprintf("t%d", i%5), "i", i)
		if i%2 == 0 {
			data.SetString("z", math.Copysign(0, float64(1-i%4)))
		}
		content, err := encodeRecord(id, data)
		if err != nil {
			t.Fatal(err)
		}
		_ = os.MkdirAll(root+"/pages/data/"+id[24:26], 0o777)
		if err := os.WriteFile(s.RecordPath(id), content, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	defs := []docindex.Definition{{Field: "kind"}, {Field: "tag"}, {Field: "z"}, {Field: "i", Range: true}}
	if err := s.SyncIndexes(defs, true); err != nil {
		t.Fatal(err)
	}
	return s, ids
}

// scanIDs is what a scan gives: the ids of the records keep accepts.
func scanIDs(t *testing.T, s *Store, keep func(*phpjson.Array) bool) []string {
	t.Helper()
	var out []string
	err := s.Stream(RecordQuery{}, func(r Record) error {
		if keep(r.Data) {
			out = append(out, r.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func field(d *phpjson.Array, f string) phpjson.Value { v, _ := d.Lookup(f); return v }

// Index-served get and count give exactly the scan's answer.
func TestIndexPathsMatchScan(t *testing.T) {
	s, ids := indexedStore(t, 300)
	negZero := math.Copysign(0, -1)
	k1 := scanIDs(t, s, func(d *phpjson.Array) bool { return field(d, "kind") == "k1" })
	k1t2 := scanIDs(t, s, func(d *phpjson.Array) bool { return field(d, "kind") == "k1" && field(d, "tag") == "t2" })
	zeros := scanIDs(t, s, func(d *phpjson.Array) bool { return field(d, "z") != nil })
	cases := []struct {
		name  string
		build func() *query.Builder
		want  []string
	}{
		{"eq", func() *query.Builder { return s.Query().Where("kind", "eq", "k1") }, k1},
		{"eq limit 1", func() *query.Builder { return s.Query().Where("kind", "eq", "k1").Limit(1) }, k1[:1]},
		{"eq limit 7", func() *query.Builder { return s.Query().Where("kind", "eq", "k1").Limit(7) }, k1[:7]},
		{"eq cursor limit", func() *query.Builder {
			return s.Query().Where("kind", "eq", "k1").Cursor(k1[10]).Limit(3)
		}, k1[11:14]},
		{"compound", func() *query.Builder { return s.Query().Where("kind", "eq", "k1").Where("tag", "eq", "t2") }, k1t2},
		{"float zero", func() *query.Builder { return s.Query().Where("z", "eq", 0.0) }, zeros},
		{"negative zero in", func() *query.Builder {
			return s.Query().Where("z", "in", phpjson.NewList(negZero, 0.0, negZero))
		}, zeros},
		{"in", func() *query.Builder {
			return s.Query().Where("kind", "in", phpjson.NewList("k1", "k1", "nothing"))
		}, k1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := tc.build().Get()
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(tc.want) {
				t.Fatalf("get: %d records, want %d", len(recs), len(tc.want))
			}
			for i := range recs {
				if recs[i].ID != tc.want[i] {
					t.Fatalf("get: record %d is %s, want %s", i, recs[i].ID, tc.want[i])
				}
			}
			n, err := tc.build().Count()
			if err != nil || n != len(tc.want) {
				t.Fatalf("count = %d, %v; want %d", n, err, len(tc.want))
			}
		})
	}
	if len(ids) != 300 || len(zeros) != 150 {
		t.Fatalf("fixture: %d records, %d zeros", len(ids), len(zeros))
	}
}

// GetEach keeps order, gives nil for missing and invalid ids, returns a
// read error only when it reaches it, and stops on ErrStop.
func TestGetEach(t *testing.T) {
	s, ids := indexedStore(t, 50)
	missing := "018fbbf0-da38-75fc-b043-000000000000"
	list := []string{ids[3], "not-an-id", ids[1], missing, ids[40], "x"}
	var got []string
	err := s.GetEach(list, func(id string, rec *Record) error {
		switch {
		case rec == nil:
			got = append(got, "nil:"+id)
		case rec.ID != id:
			t.Errorf("record %s for id %s", rec.ID, id)
		default:
			got = append(got, id)
		}
		return nil
	})
	want := []string{ids[3], "nil:not-an-id", ids[1], "nil:" + missing, ids[40], "nil:x"}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, %v\nwant %v", got, err, want)
	}

	if err := os.WriteFile(s.RecordPath(ids[30]), []byte("{ broken"), 0o666); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = s.GetEach(ids, func(string, *Record) error {
		n++
		if n == 10 {
			return ErrStop
		}
		return nil
	})
	if err != nil || n != 10 {
		t.Fatalf("stop before the broken record: n=%d err=%v", n, err)
	}
	n = 0
	err = s.GetEach(ids, func(string, *Record) error { n++; return nil })
	if err == nil || err.Error() != msgNotObject || n != 30 {
		t.Fatalf("broken record: n=%d err=%v", n, err)
	}
	boom := errors.New("boom")
	if err := s.GetEach(ids, func(string, *Record) error { return boom }); err != boom {
		t.Fatalf("callback error: %v", err)
	}
}

// Export writes exactly the canonical line of every record, in id order,
// also for files outside their bucket and non-canonical (JSONC) files.
func TestExportLines(t *testing.T) {
	s, ids := indexedStore(t, 200)
	odd := "018fbbf0-da38-75fc-b043-8814e84c4fdc"
	if err := os.WriteFile(s.Dir()+"/data/"+odd+".jsonc", []byte("// comment\n{ \"data\": {\"b\": 1e2, \"a\": {},},\n \"id\": \""+odd+"\" }"), 0o666); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	err := s.Stream(RecordQuery{}, func(r Record) error {
		line, err := encodeRecord(r.ID, r.Data)
		want.Write(line)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir() + "/out.jsonl"
	n, err := s.ExportJSONL(out)
	if err != nil || n != len(ids)+1 {
		t.Fatalf("export: %d, %v", n, err)
	}
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("export differs from the streamed records")
	}
	if !bytes.Contains(got, []byte(`{"id":"`+odd+`","data":{"b":100.0,"a":[]}}`+"\n")) {
		t.Fatalf("JSONC record not re-encoded canonically")
	}
}
