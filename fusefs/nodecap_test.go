package fusefs

import (
	"fmt"
	"testing"
	"weak"
)

func TestRecordNodeCapPrunesTheOldestEighth(t *testing.T) {
	var nodes []*recordNode // kept alive, so every weak pointer resolves
	var pruned []string
	rc := &recordNodeCap{limit: 16, prune: func(batch []weak.Pointer[recordNode]) {
		for _, w := range batch {
			pruned = append(pruned, w.Value().id)
		}
	}}
	for i := range 40 {
		nodes = append(nodes, &recordNode{id: fmt.Sprint(i)})
		rc.added(nodes[i])
		if len(rc.given) > rc.limit {
			t.Fatalf("after %d adds: %d nodes kept, limit %d", i+1, len(rc.given), rc.limit)
		}
	}
	// Each time 17 are held, the oldest 3 go (the one over, and an eighth
	// of 16): at adds 17, 20, ..., 38, eight times, so 0-23, in order.
	var want []string
	for i := range 24 {
		want = append(want, fmt.Sprint(i))
	}
	if fmt.Sprint(pruned) != fmt.Sprint(want) {
		t.Fatalf("pruned %v, want %v", pruned, want)
	}
	if first, last := rc.given[0].Value().id, rc.given[len(rc.given)-1].Value().id; first != "24" || last != "39" {
		t.Fatalf("kept %s..%s, want 24..39", first, last)
	}
}

func TestNoRecordNodeCap(t *testing.T) {
	if rc := newRecordNodeCap(0, nil); rc != nil {
		t.Fatal("limit 0 made a cap")
	}
	var rc *recordNodeCap
	rc.added(&recordNode{}) // a nil cap notes nothing
}
