package seglog

import (
	"math/rand"
	"testing"
)

// moveNear leaves the index exactly as move does: ids in the sorted run
// and in the hash part, removed and unknown ids, non-canonical ids, in
// increasing and in shuffled order.
func TestMoveNearMatchesMove(t *testing.T) {
	build := func() *stateIndex {
		s := newStateIndex()
		for i := 10; i < 400; i += 2 { // the run
			s.apply([]byte(testID(i)), opPut, 1, int64(i))
		}
		for i := 1; i < 10; i++ { // below the run: the hash part
			s.apply([]byte(testID(i)), opPut, 1, int64(i))
		}
		s.apply([]byte(testID(20)), opDelete, 1, 999)
		s.remove(testID(30))
		s.apply([]byte("not-a-uuid"), opPut, 1, 5)
		return s
	}
	var ids []string
	for i := 0; i < 420; i++ {
		ids = append(ids, testID(i))
	}
	ids = append(ids, "not-a-uuid", "other")
	for _, shuffle := range []bool{false, true} {
		if shuffle {
			rand.New(rand.NewSource(1)).Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		}
		want, got := build(), build()
		hint := 0
		for n, id := range ids {
			want.move(id, 7, int64(n))
			got.moveNear(id, 7, int64(n), &hint)
		}
		if !got.sameAs(want) || got.live != want.live || got.deleted != want.deleted {
			t.Fatalf("shuffle=%v: moveNear and move differ", shuffle)
		}
		for _, id := range ids {
			a, aok := want.lookupString(id)
			b, bok := got.lookupString(id)
			if a != b || aok != bok {
				t.Fatalf("shuffle=%v: %s: %v %v, want %v %v", shuffle, id, b, bok, a, aok)
			}
		}
	}
}
