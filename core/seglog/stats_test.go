package seglog

import (
	"math/rand/v2"
	"testing"
)

// segStats.add keeps min, max and ordered exactly as a plain scan of the
// ids does, through ordered runs, equal ids and the first decrease.
func TestSegStatsMatchPlainScan(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for round := 0; round < 300; round++ {
		s := newSegStats(0)
		var ids []string
		n := 1 + r.IntN(30)
		for i := 0; i < n; i++ {
			var id string
			switch {
			case len(ids) > 0 && r.IntN(4) == 0:
				id = ids[len(ids)-1] // equal to the last
			case r.IntN(8) == 0:
				id = testID(r.IntN(100)) // any order
			default:
				id = testID(10*i + r.IntN(10)) // mostly increasing
			}
			ids = append(ids, id)
			s.add([]byte(id), int64(i))
			min, max, ordered := ids[0], ids[0], true
			for j, x := range ids {
				min, max = minOf(min, x), maxOf(max, x)
				if j > 0 && x < ids[j-1] {
					ordered = false
				}
			}
			if s.min() != min || s.max() != max || s.ordered != ordered || s.records != int64(len(ids)) {
				t.Fatalf("after %q: min %s max %s ordered %v, want %s %s %v", ids, s.min(), s.max(), s.ordered, min, max, ordered)
			}
		}
	}
}

func minOf(a, b string) string { return min(a, b) }
func maxOf(a, b string) string { return max(a, b) }
