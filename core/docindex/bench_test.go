package docindex

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/phpjson"
)

type benchRecord struct {
	id   string
	data *phpjson.Array
}

func benchRecords(n int) []benchRecord {
	recs := make([]benchRecord, n)
	for i := range recs {
		recs[i] = benchRecord{rangeID(i), obj(
			"kind", fmt.Sprintf("kind-%d", i%10),
			"tag", fmt.Sprintf("tag-%d", i%50),
			"n", int64(i*7919%n),
			"title", "some text that is not indexed",
		)}
	}
	return recs
}

func sliceSource(recs []benchRecord) RecordSource {
	return func(yield func(string, *phpjson.Array) error) error {
		for _, r := range recs {
			if err := yield(r.id, r.data); err != nil {
				return err
			}
		}
		return nil
	}
}

// BenchmarkRebuild: 20k records, equality kind and tag (plus their
// compound pair) and range n; records come from memory, so this is the
// index building and writing alone.
func BenchmarkRebuild(b *testing.B) {
	const n = 20000
	recs := benchRecords(n)
	m, _ := Open(b.TempDir(), nil)
	m.pending = []Definition{{Field: "kind"}, {Field: "tag"}, {Field: "n", Range: true}}
	if err := m.Sync(false, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	user0, sys0 := processCPU()
	for i := 0; i < b.N; i++ {
		if _, _, err := m.Rebuild(sliceSource(recs)); err != nil {
			b.Fatal(err)
		}
	}
	user, sys := processCPU()
	user, sys = user-user0, sys-sys0
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "us/record")
	b.ReportMetric(float64((user+sys).Microseconds())/float64(b.N*n), "cpu-us/record")
	b.ReportMetric(float64(user.Microseconds())/float64(b.N*n), "user-us/record")
}

// processCPU is the user and the system CPU time of the whole process
// (all threads, GC included).
func processCPU() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// BenchmarkEqualityLookup: raw scan of an entry file holding 2000 ids.
func BenchmarkEqualityLookup(b *testing.B) {
	recs := benchRecords(20000)
	m, _ := Open(b.TempDir(), nil)
	m.pending = []Definition{{Field: "kind"}, {Field: "tag"}, {Field: "n", Range: true}}
	if err := m.Sync(false, nil); err != nil {
		b.Fatal(err)
	}
	if _, _, err := m.Rebuild(sliceSource(recs)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ids, _, err := m.EqualityIDs("kind", "kind-3")
		if err != nil || len(ids) != 2000 {
			b.Fatalf("%d ids, %v", len(ids), err)
		}
	}
}

// BenchmarkRangeValueLookup: eq on a range field (sparse seek + delta).
func BenchmarkRangeValueLookup(b *testing.B) {
	recs := benchRecords(20000)
	m, _ := Open(b.TempDir(), nil)
	m.pending = []Definition{{Field: "n", Range: true}}
	if err := m.Sync(false, nil); err != nil {
		b.Fatal(err)
	}
	if _, _, err := m.Rebuild(sliceSource(recs)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ids, _, err := m.EqualityIDs("n", int64(12345))
		if err != nil || len(ids) != 1 {
			b.Fatalf("%d ids, %v", len(ids), err)
		}
	}
}

// BenchmarkUpdateRecord: one put of an existing record with unchanged
// values into a rebuilt 20k index (entry files of 2000/400/400 ids): the
// per-put maintenance of docs/format/indexes.md §9 (3 removals, 3 additions, 2 delta lines).
func BenchmarkUpdateRecord(b *testing.B) {
	const n = 20000
	recs := benchRecords(n)
	m, _ := Open(b.TempDir(), nil)
	m.pending = []Definition{{Field: "kind"}, {Field: "tag"}, {Field: "n", Range: true}}
	if err := m.Sync(false, nil); err != nil {
		b.Fatal(err)
	}
	if _, _, err := m.Rebuild(sliceSource(recs)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	user0, sys0 := processCPU()
	for i := 0; i < b.N; i++ {
		r := recs[i%n]
		if err := m.UpdateRecord(r.id, r.data, r.data); err != nil {
			b.Fatal(err)
		}
	}
	user, sys := processCPU()
	user, sys = user-user0, sys-sys0
	b.ReportMetric(float64((user+sys).Microseconds())/float64(b.N), "cpu-us/op")
	b.ReportMetric(float64(user.Microseconds())/float64(b.N), "user-us/op")
}

// BenchmarkUpdateRecordMoves: each update moves a record of 20k to another
// "kind" value, so two equality entry files of about 2000 ids each are
// read and rewritten (what an indexed put that changes a value costs).
func BenchmarkUpdateRecordMoves(b *testing.B) {
	const n = 20000
	recs := benchRecords(n)
	m, _ := Open(b.TempDir(), nil)
	m.pending = []Definition{{Field: "kind"}}
	if err := m.Sync(false, nil); err != nil {
		b.Fatal(err)
	}
	if _, _, err := m.Rebuild(sliceSource(recs)); err != nil {
		b.Fatal(err)
	}
	moved := make([]*phpjson.Array, n)
	for i := range recs {
		moved[i] = obj("kind", fmt.Sprintf("kind-%d", (i+1)%10))
	}
	b.ResetTimer()
	user0, sys0 := processCPU()
	for i := 0; i < b.N; i++ {
		r := recs[i%n]
		if err := m.UpdateRecord(r.id, r.data, moved[i%n]); err != nil {
			b.Fatal(err)
		}
		recs[i%n].data, moved[i%n] = moved[i%n], r.data
	}
	user, sys := processCPU()
	b.ReportMetric(float64((user+sys-user0-sys0).Microseconds())/float64(b.N), "cpu-us/op")
}
