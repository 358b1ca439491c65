package query

import (
	"fmt"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// benchSource holds n records {"kind": k, "n": i, "name": ...} with 10
// distinct kinds, in id order.
func benchSource(n int) *memSource {
	src := newMemSource()
	ids := make([]string, n)
	for i := 0; i < n; i++ {
		d := phpjson.NewArray(3)
		d.SetString("kind", fmt.Sprintf("kind-%d", i%10))
		d.SetString("n", int64(i))
		d.SetString("name", fmt.Sprintf("record %d", i))
		ids[i] = fmt.Sprintf("018f8be0-0001-7000-8000-%012d", i)
		src.recs[ids[i]] = d
	}
	src.order = ids // already sorted: skip re-sorting per scan
	return src
}

// BenchmarkEqualityQueryScan: where(kind)->eq(..)->get() over 20k
// in-memory records, full scan (no index): the query engine's own cost.
func BenchmarkEqualityQueryScan(b *testing.B) {
	src := benchSource(20000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recs, err := New(src).Where("kind", "eq", "kind-3").Get()
		if err != nil || len(recs) != 2000 {
			b.Fatalf("%d records, %v", len(recs), err)
		}
	}
}

// BenchmarkOrderedRangeQueryScan: gt + orderBy desc + limit over 20k.
func BenchmarkOrderedRangeQueryScan(b *testing.B) {
	src := benchSource(20000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recs, err := New(src).Where("n", "gt", int64(10000)).OrderBy("n", "desc").Limit(10).Get()
		if err != nil || len(recs) != 10 {
			b.Fatalf("%d records, %v", len(recs), err)
		}
	}
}
