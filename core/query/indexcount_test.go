package query

import (
	"errors"
	"math"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// memCounter answers the stored-count lookups of memIndexed from its fake
// entries (the count of an entry is its number of ids).
type memCounter struct {
	*memIndexed
	counts int    // count lookups made
	fail   error  // returned by every count lookup when set
	noComp string // a field without compound entries (indexed=false)
}

func (m *memCounter) EqualityCount(field string, v phpjson.Value) (int64, bool, error) {
	m.counts++
	if m.fail != nil {
		return 0, false, m.fail
	}
	ids, ok, err := m.EqualityIDs(field, v)
	return int64(len(ids)), ok, err
}

func (m *memCounter) CompoundCount(f1 string, v1 phpjson.Value, f2 string, v2 phpjson.Value) (int64, bool, error) {
	m.counts++
	if f1 == m.noComp || f2 == m.noComp {
		return 0, false, nil
	}
	a, ok1, _ := m.EqualityIDs(f1, v1)
	b, ok2, _ := m.EqualityIDs(f2, v2)
	return int64(len(intersectSorted(a, b))), ok1 && ok2, nil
}

// counterFixture: name unique, kind/tag/v equality (v holds 0.0 and -0.0,
// ints, strings, bools, null and arrays), score range.
func counterFixture(t *testing.T) (*memSource, *memCounter) {
	plain := newMemSource()
	fill(t, plain.put)
	ix := newMemIndexed()
	fill(t, ix.put)
	ix.define("name", true, false)
	ix.define("kind", false, false)
	ix.define("tag", false, false)
	ix.define("v", false, false)
	ix.define("score", false, true)
	return plain, &memCounter{memIndexed: ix, noComp: "name"}
}

func TestCountFromIndex(t *testing.T) {
	list := func(vs ...phpjson.Value) *phpjson.Array { return phpjson.NewList(vs...) }
	negZero := math.Copysign(0, -1)
	cases := []struct {
		name      string
		build     func(*Builder) *Builder
		fromIndex bool // answered from stored counts, no record read
	}{
		{"eq string", func(b *Builder) *Builder { return b.Where("kind", "eq", "page") }, true},
		{"eq missing value", func(b *Builder) *Builder { return b.Where("kind", "eq", "nothing") }, true},
		{"eq unique", func(b *Builder) *Builder { return b.Where("name", "eq", "beta") }, true},
		{"eq int", func(b *Builder) *Builder { return b.Where("v", "eq", int64(10)) }, true},
		{"eq int is not float", func(b *Builder) *Builder { return b.Where("v", "eq", 10.0) }, true},
		{"eq float zero counts both zeros", func(b *Builder) *Builder { return b.Where("v", "eq", 0.0) }, true},
		{"eq negative zero counts both zeros", func(b *Builder) *Builder { return b.Where("v", "eq", negZero) }, true},
		{"eq null", func(b *Builder) *Builder { return b.Where("v", "eq", nil) }, true},
		{"eq bool", func(b *Builder) *Builder { return b.Where("v", "eq", true) }, true},
		{"in with duplicates", func(b *Builder) *Builder {
			return b.Where("kind", "in", list("page", "note", "page"))
		}, true},
		{"in both zeros once", func(b *Builder) *Builder {
			return b.Where("v", "in", list(0.0, negZero, int64(0), nil))
		}, true},
		{"in empty", func(b *Builder) *Builder { return b.Where("kind", "in", list()) }, true},
		{"limit caps", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Limit(2) }, true},
		{"compound", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Where("tag", "eq", "x") }, true},
		{"compound zeros", func(b *Builder) *Builder { return b.Where("v", "eq", negZero).Where("kind", "eq", "post") }, true},
		{"eq array operand scans", func(b *Builder) *Builder { return b.Where("v", "eq", list(int64(1))) }, false},
		{"in with array operand scans", func(b *Builder) *Builder { return b.Where("v", "in", list(list(int64(1)), int64(5))) }, false},
		{"range field", func(b *Builder) *Builder { return b.Where("score", "eq", int64(5)) }, false},
		{"unindexed field", func(b *Builder) *Builder { return b.Where("nope", "eq", int64(5)) }, false},
		{"cursor", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Cursor(tid(5)) }, false},
		{"two groups", func(b *Builder) *Builder {
			return b.Where("kind", "eq", "page").OrWhere(func(q *Builder) *Builder { return q.Where("tag", "eq", "z") })
		}, false},
		{"other operator", func(b *Builder) *Builder { return b.Where("kind", "neq", "page") }, false},
		{"compound same field", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Where("kind", "eq", "page") }, false},
		{"compound without entry", func(b *Builder) *Builder { return b.Where("name", "eq", "alpha").Where("kind", "eq", "page") }, false},
		{"three eqs", func(b *Builder) *Builder {
			return b.Where("kind", "eq", "page").Where("tag", "eq", "x").Where("v", "eq", int64(10))
		}, false},
		{"eq id", func(b *Builder) *Builder { return b.Where("id", "eq", tid(3)) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plain, ix := counterFixture(t)
			want, err := tc.build(New(plain)).Count()
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.build(New(ix)).Count()
			if err != nil || got != want {
				t.Fatalf("count = %d, %v; scan gives %d", got, err, want)
			}
			read := ix.scanned + ix.gets
			if tc.fromIndex && (read != 0 || (ix.counts == 0 && want > 0)) {
				t.Errorf("want a stored-count answer: %d records read, %d count lookups", read, ix.counts)
			}
			if !tc.fromIndex && read == 0 && want > 0 {
				t.Errorf("want matches counted from records, none was read")
			}
		})
	}
}

func TestCountFromIndexError(t *testing.T) {
	_, ix := counterFixture(t)
	ix.fail = errors.New("disk on fire")
	if _, err := New(ix).Where("kind", "eq", "page").Count(); !errors.Is(err, ix.fail) {
		t.Fatalf("err = %v, want the lookup error", err)
	}
}

func TestSortedUniqueAndIntersect(t *testing.T) {
	cases := []struct{ in, want []string }{
		{nil, []string{}},
		{[]string{"a"}, []string{"a"}},
		{[]string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{[]string{"c", "a", "b", "a"}, []string{"a", "b", "c"}},
		{[]string{"a", "a", "b", "b"}, []string{"a", "b"}},
	}
	for _, tc := range cases {
		got := sortedUnique(append([]string(nil), tc.in...))
		if len(got) != len(tc.want) {
			t.Errorf("sortedUnique(%v) = %v", tc.in, got)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("sortedUnique(%v) = %v", tc.in, got)
			}
		}
	}
	if got := intersectSorted([]string{"a", "c", "d"}, []string{"b", "c", "d", "e"}); len(got) != 2 || got[0] != "c" || got[1] != "d" {
		t.Errorf("intersectSorted = %v", got)
	}
}
