package query

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// memPager adds EqualityPager to memIndexed and records each page asked
// for. vanishAfter > 0 makes every call after that many report the entry
// as no longer indexed (a concurrent reindex).
type memPager struct {
	*memIndexed
	pages       []string // "after|limit"
	vanishAfter int
}

func (m *memPager) EqualityIDsFrom(field string, v phpjson.Value, after string, limit int) ([]string, bool, error) {
	m.pages = append(m.pages, fmt.Sprintf("%s|%d", after, limit))
	if m.vanishAfter > 0 && len(m.pages) > m.vanishAfter {
		return nil, false, nil
	}
	ids, indexed, err := m.EqualityIDs(field, v)
	if err != nil || !indexed {
		return nil, indexed, err
	}
	ids = sortedUnique(ids)
	ids = ids[sort.Search(len(ids), func(i int) bool { return ids[i] > after }):]
	if limit > 0 && len(ids) > limit {
		ids = ids[:limit]
	}
	return ids, true, nil
}

// memPagerEacher serves GetEach too, as DocStore does.
type memPagerEacher struct {
	*memPager
	ge *memGetEacher
}

func (m *memPagerEacher) GetEach(ids []string, fn func(string, *Record) error) error {
	return m.ge.GetEach(ids, fn)
}

// Paged candidates give the scan's results for every query shape, and are
// used exactly for a limit with one usable condition, an eq on an equality
// field.
func TestPagedCandidatesMatchScan(t *testing.T) {
	negZero := math.Copysign(0, -1)
	cases := []struct {
		name  string
		build func(*Builder) *Builder
		paged bool
	}{
		{"eq limit 1", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Limit(1) }, true},
		{"eq limit 3", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Limit(3) }, true},
		{"eq limit above count", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Limit(100) }, true},
		{"eq unique", func(b *Builder) *Builder { return b.Where("name", "eq", "gamma").Limit(2) }, true},
		{"eq no entry", func(b *Builder) *Builder { return b.Where("kind", "eq", "none").Limit(2) }, true},
		{"eq null", func(b *Builder) *Builder { return b.Where("tag", "eq", nil).Limit(2) }, true},
		{"eq int on string field", func(b *Builder) *Builder { return b.Where("kind", "eq", int64(1)).Limit(2) }, true},
		{"eq and unindexed filter", func(b *Builder) *Builder {
			return b.Where("kind", "eq", "page").Where("score", "gte", int64(6)).Limit(2)
		}, true},
		{"eq and failing filter", func(b *Builder) *Builder {
			return b.Where("kind", "eq", "page").Where("name", "neq", "alpha").Where("missing", "eq", nil).Limit(1)
		}, true},
		{"eq cursor", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Cursor(tid(5)).Limit(2) }, true},
		{"eq cursor past all", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Cursor(tid(13)).Limit(2) }, true},
		{"first", func(b *Builder) *Builder { return b.Where("tag", "eq", "y").Limit(1) }, true},
		{"no limit", func(b *Builder) *Builder { return b.Where("kind", "eq", "page") }, false},
		{"ordered", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").OrderBy("score", "desc").Limit(2) }, false},
		{"two eqs", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Where("tag", "eq", "x").Limit(2) }, false},
		{"eq range field", func(b *Builder) *Builder { return b.Where("v", "eq", int64(5)).Limit(2) }, false},
		{"eq float zero", func(b *Builder) *Builder { return b.Where("kind", "eq", negZero).Limit(2) }, false},
		{"eq array", func(b *Builder) *Builder { return b.Where("kind", "eq", phpjson.NewList("page")).Limit(2) }, false},
		{"in", func(b *Builder) *Builder { return b.Where("kind", "in", phpjson.NewList("page")).Limit(2) }, false},
		{"eq and id", func(b *Builder) *Builder {
			return b.Where("kind", "eq", "page").Where("id", "in", phpjson.NewList(tid(5))).Limit(2)
		}, false},
		{"eq and range condition", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Where("v", "lt", int64(8)).Limit(2) }, false},
		{"two groups", func(b *Builder) *Builder {
			return b.Where("kind", "eq", "page").OrWhere(func(q *Builder) *Builder { return q.Where("tag", "eq", "z") }).Limit(2)
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plain, _ := fixtures(t)
			want, err := tc.build(New(plain)).Get()
			if err != nil {
				t.Fatal(err)
			}
			wantCount, err := tc.build(New(plain)).Count()
			if err != nil {
				t.Fatal(err)
			}
			_, ix := fixtures(t)
			pager := &memPager{memIndexed: ix}
			_, ix2 := fixtures(t)
			both := &memPagerEacher{memPager: &memPager{memIndexed: ix2}, ge: &memGetEacher{memIndexed: ix2}}
			for i, src := range []Source{pager, both} {
				got, err := tc.build(New(src)).Get()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(recIDs(got), recIDs(want)) {
					t.Errorf("%T: got %v, want %v", src, recIDs(got), recIDs(want))
				}
				if used := len(pager.pages) > 0; i == 0 && used != tc.paged {
					t.Errorf("Get pages %v, want paged=%v", pager.pages, tc.paged)
				}
				if n, err := tc.build(New(src)).Count(); err != nil || n != wantCount {
					t.Errorf("%T: count %d, %v; want %d", src, n, err, wantCount)
				}
			}
		})
	}
}

// Pages start at the cursor with the limit and grow geometrically while
// candidates fail the predicate; a definition vanishing between pages
// scans the rest.
func TestPagedCandidatesPages(t *testing.T) {
	_, ix := fixtures(t)
	p := &memPager{memIndexed: ix}
	// kind=page: 1 2 5 7 10 11 13; score>=6 leaves 2 5 11
	got, err := New(p).Where("kind", "eq", "page").Where("score", "gte", int64(6)).Limit(3).Get()
	if err != nil || !reflect.DeepEqual(recIDs(got), ids(2, 5, 11)) {
		t.Fatalf("got %v, %v", recIDs(got), err)
	}
	if want := []string{"|3", tid(5) + "|6"}; !reflect.DeepEqual(p.pages, want) {
		t.Errorf("pages %v, want %v", p.pages, want)
	}

	p.pages = nil
	if _, err := New(p).Where("kind", "eq", "page").Cursor(tid(2)).Limit(2).Get(); err != nil {
		t.Fatal(err)
	}
	if want := []string{tid(2) + "|2"}; !reflect.DeepEqual(p.pages, want) {
		t.Errorf("cursor pages %v, want %v", p.pages, want)
	}

	for _, vanish := range []int{1, 2} {
		_, ix := fixtures(t)
		p := &memPager{memIndexed: ix, vanishAfter: vanish}
		got, err := New(p).Where("kind", "eq", "page").Where("score", "gte", int64(5)).Limit(4).Get()
		if err != nil || !reflect.DeepEqual(recIDs(got), ids(1, 2, 5, 7)) {
			t.Errorf("vanish after %d: got %v, %v", vanish, recIDs(got), err)
		}
	}
}
