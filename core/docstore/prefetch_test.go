package docstore

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/storhfs/storhfs/internal/proctest"
)

// prefetchStore writes n records (data {"i": i}) and returns their ids in
// order.
func prefetchStore(t *testing.T, s *Store, n int) []string {
	t.Helper()
	ids := sequentialIDs(t, n)
	for i, id := range ids {
		writeRecordFile(t, s, id, recordBytes(t, id, i))
	}
	return ids
}

func recordBytes(t *testing.T, id string, i int) []byte {
	t.Helper()
	content, err := encodeRecord(id, obj("i", i))
	if err != nil {
		t.Fatal(err)
	}
	return content
}

func writeRecordFile(t *testing.T, s *Store, id string, content []byte) {
	t.Helper()
	if err := os.MkdirAll(s.Dir()+"/data/"+id[24:26], 0o777); err != nil {
		t.Fatal(err)
	}
	// As every storh writer does: a temp file renamed over the record, so
	// a concurrent reader sees the old or the new file.
	tmp := s.RecordPath(id) + ".test.tmp"
	if err := os.WriteFile(tmp, content, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, s.RecordPath(id)); err != nil {
		t.Fatal(err)
	}
}

// describe renders a record or error for comparisons.
func describe(id string, rec *Record, err error) string {
	switch {
	case err != nil:
		return id + " error " + err.Error()
	case rec == nil:
		return id + " missing"
	}
	return id + " " + rec.ID + " " + mustJSONString(rec)
}

func mustJSONString(rec *Record) string {
	b, err := encodeRecord(rec.ID, rec.Data)
	if err != nil {
		return "encode error " + err.Error()
	}
	return string(b)
}

// TestPrefetchedReadsMatchGet: Stream (with and without an error handler,
// with limits) and GetEach give, record for record and error for error,
// what Get gives, for valid, corrupt, non-canonical, missing and invalid
// ids, with and without helper goroutines.
func TestPrefetchedReadsMatchGet(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("procs%d", procs), func(t *testing.T) {
			proctest.WithProcs(t, procs)
			s := openStore(t, t.TempDir())
			ids := prefetchStore(t, s, 200)
			writeRecordFile(t, s, ids[7], []byte("{ broken"))
			writeRecordFile(t, s, ids[50], []byte("[1,2]"))
			writeRecordFile(t, s, ids[51], []byte(`{"id":"`+ids[52]+`","data":{}}`))
			writeRecordFile(t, s, ids[90], []byte("// comment\n{\"data\": {\"x\": 1}, \"id\": \""+ids[90]+"\"}\n"))
			writeRecordFile(t, s, ids[120], []byte(""))
			base := runtime.NumGoroutine()

			var want []string
			for _, id := range ids {
				rec, err := s.Get(id)
				want = append(want, describe(id, rec, err))
			}

			// Stream with a handler: every record or its error, in order.
			var got []string
			q := RecordQuery{OnError: func(key string, err error) { got = append(got, describe(key, nil, err)) }}
			err := s.Stream(q, func(r Record) error { got = append(got, describe(r.ID, &r, nil)); return nil })
			if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("stream with handler: %v\ngot  %q\nwant %q", err, got, want)
			}

			// Without a handler: the records before the first error, then it.
			got = got[:0]
			err = s.Stream(RecordQuery{}, func(r Record) error { got = append(got, describe(r.ID, &r, nil)); return nil })
			if fmt.Sprint(got) != fmt.Sprint(want[:7]) || describe(ids[7], nil, err) != want[7] {
				t.Fatalf("stream without handler: %q, %v", got, err)
			}

			// Limits stop early at every position.
			for limit := 1; limit < 7; limit++ {
				got = got[:0]
				err = s.Stream(RecordQuery{Limit: limit}, func(r Record) error { got = append(got, describe(r.ID, &r, nil)); return nil })
				if err != nil || fmt.Sprint(got) != fmt.Sprint(want[:limit]) {
					t.Fatalf("limit %d: %q, %v", limit, got, err)
				}
			}

			// GetEach over valid, missing and invalid ids in any order.
			list := []string{ids[3], "not-an-id", ids[199], "018fbbf0-0000-7000-8000-000000000000", ids[3]}
			for i := 60; i < 130; i++ {
				list = append(list, ids[i])
			}
			var wantEach []string
			for _, id := range list {
				rec, err := s.Get(id)
				if err != nil && validID(id) != nil {
					rec, err = nil, nil // GetEach: no record can have an invalid id
				}
				wantEach = append(wantEach, describe(id, rec, err))
			}
			var gotEach []string
			each := func(id string, rec *Record) error { gotEach = append(gotEach, describe(id, rec, nil)); return nil }
			err = s.GetEach(list, each)
			if n := len(gotEach); err == nil || fmt.Sprint(gotEach) != fmt.Sprint(wantEach[:n]) || describe(list[n], nil, err) != wantEach[n] {
				t.Fatalf("GetEach: %v\ngot  %q\nwant %q", err, gotEach, wantEach)
			}
			for stop := 0; stop < 5; stop++ {
				gotEach = gotEach[:0]
				err = s.GetEach(list, func(id string, rec *Record) error {
					if len(gotEach) == stop {
						return ErrStop
					}
					return each(id, rec)
				})
				if err != nil || fmt.Sprint(gotEach) != fmt.Sprint(wantEach[:stop]) {
					t.Fatalf("GetEach stop %d: %q, %v", stop, gotEach, err)
				}
			}
			proctest.CheckNoLeak(t, base)
		})
	}
}

// TestPrefetchSeesChangesAhead: a record deleted or rewritten by another
// writer while a Stream or GetEach runs is read as it is now once it lies
// beyond the read-ahead window, and as the old or the new file (never
// anything else) inside it.
func TestPrefetchSeesChangesAhead(t *testing.T) {
	proctest.WithProcs(t, 2)
	s := openStore(t, t.TempDir())
	ids := prefetchStore(t, s, 3*scanWindow)
	const at = 5
	near, farGone, farNew := at+2, at+scanWindow+3, at+scanWindow+4
	check := func(name string, seen map[string]string) {
		t.Helper()
		if v, ok := seen[ids[farGone]]; ok {
			t.Fatalf("%s: deleted record delivered: %s", name, v)
		}
		if v := seen[ids[farNew]]; v != string(recordBytes(t, ids[farNew], -1)) {
			t.Fatalf("%s: rewritten record read as %s", name, v)
		}
		if v := seen[ids[near]]; v != string(recordBytes(t, ids[near], near)) && v != string(recordBytes(t, ids[near], -1)) {
			t.Fatalf("%s: record in the window read as %s", name, v)
		}
	}
	change := func() {
		if err := os.Remove(s.RecordPath(ids[farGone])); err != nil {
			t.Fatal(err)
		}
		writeRecordFile(t, s, ids[near], recordBytes(t, ids[near], -1))
		writeRecordFile(t, s, ids[farNew], recordBytes(t, ids[farNew], -1))
	}
	restore := func() {
		for _, i := range []int{near, farGone, farNew} {
			writeRecordFile(t, s, ids[i], recordBytes(t, ids[i], i))
		}
	}

	seen := map[string]string{}
	err := s.Stream(RecordQuery{}, func(r Record) error {
		seen[r.ID] = mustJSONString(&r)
		if len(seen) == at {
			change()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check("Stream", seen)

	restore()
	seen = map[string]string{}
	err = s.GetEach(ids, func(id string, rec *Record) error {
		if rec != nil {
			seen[id] = mustJSONString(rec)
		}
		if len(seen) == at {
			change()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if getWindow >= scanWindow {
		t.Fatal("the GetEach window must be inside the scan window for this test")
	}
	check("GetEach", seen)
}
