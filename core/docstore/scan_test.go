package docstore

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/uuidv7"
)

// The read-ahead scan keeps id order, stops early without leaking its
// goroutines, and stops at the first unreadable record.
func TestScanReadAheadOrderAndStop(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	gen := uuidv7.NewGenerator(nil, nil)
	var ids []string
	for i := 0; i < 300; i++ {
		id, err := gen.NewAt(1700000000000 + int64(i))
		if err != nil {
			t.Fatal(err)
		}
		content, _ := encodeRecord(id, obj("i", i))
		_ = os.MkdirAll(root+"/pages/data/"+id[24:26], 0o777)
		if err := os.WriteFile(s.RecordPath(id), content, 0o666); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	base := runtime.NumGoroutine()
	var got []string
	if err := s.Stream(RecordQuery{}, func(r Record) error { got = append(got, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := range ids {
		if got[i] != ids[i] {
			t.Fatalf("order differs at %d", i)
		}
	}
	got = got[:0]
	if err := s.Stream(RecordQuery{Limit: 5}, func(r Record) error { got = append(got, r.ID); return nil }); err != nil || len(got) != 5 {
		t.Fatalf("limit: %d %v", len(got), err)
	}
	if err := os.WriteFile(s.RecordPath(ids[150]), []byte("{ broken"), 0o666); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := s.Stream(RecordQuery{}, func(Record) error { n++; return nil })
	if err == nil || err.Error() != msgNotObject || n != 150 {
		t.Fatalf("corrupt mid-scan: n=%d err=%v", n, err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > base {
		t.Fatalf("goroutines leaked: %d > %d", g, base)
	}
}
