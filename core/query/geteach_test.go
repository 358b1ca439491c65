package query

import (
	"reflect"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// memGetEacher serves GetEach from memIndexed and records the size of
// every call.
type memGetEacher struct {
	*memIndexed
	calls []int
}

func (m *memGetEacher) GetEach(ids []string, fn func(string, *Record) error) error {
	m.calls = append(m.calls, len(ids))
	return m.memIndexed.GetEach(ids, fn)
}

// The candidate path through GetEach gives Get's results, asks for no
// more ids than the limit needs when all match, and grows its requests
// geometrically when candidates fail the predicate.
func TestCandidatesThroughGetEach(t *testing.T) {
	cases := []struct {
		name  string
		build func(*Builder) *Builder
		calls []int
	}{
		{"no limit", func(b *Builder) *Builder { return b.Where("kind", "eq", "page") }, []int{7}},
		{"limit all match", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Limit(2) }, []int{2}},
		// kind=page: 1 2 5 7 10 11 13; score>=6 leaves 2 5 11
		{"limit some fail", func(b *Builder) *Builder {
			return b.Where("kind", "eq", "page").Where("score", "gte", int64(6)).Limit(3)
		}, []int{3, 4}},
		{"cursor", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Cursor(tid(7)).Limit(9) }, []int{3}},
		{"stale and invalid ids", func(b *Builder) *Builder {
			return b.Where("id", "in", phpjson.NewList(tid(99), "nope", tid(4)))
		}, []int{3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, ix := fixtures(t)
			want, err := tc.build(New(ix)).Get()
			if err != nil {
				t.Fatal(err)
			}
			_, ix2 := fixtures(t)
			ge := &memGetEacher{memIndexed: ix2}
			got, err := tc.build(New(ge)).Get()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(recIDs(got), recIDs(want)) {
				t.Errorf("got %v, want %v", recIDs(got), recIDs(want))
			}
			if !reflect.DeepEqual(ge.calls, tc.calls) {
				t.Errorf("GetEach calls %v, want %v", ge.calls, tc.calls)
			}
		})
	}
}
