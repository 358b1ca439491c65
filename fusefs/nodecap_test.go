package fusefs

import (
	"fmt"
	"testing"
)

func TestRecordNodeCapPrunesTheOldestEighth(t *testing.T) {
	var pruned []string
	rc := &recordNodeCap{limit: 16, prune: func(batch []givenRecord) {
		for _, g := range batch {
			pruned = append(pruned, g.name)
		}
	}}
	for i := range 40 {
		rc.added(nil, fmt.Sprint(i))
		if len(rc.given) > rc.limit {
			t.Fatalf("after %d adds: %d entries kept, limit %d", i+1, len(rc.given), rc.limit)
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
	if rc.given[0].name != "24" || rc.given[len(rc.given)-1].name != "39" {
		t.Fatalf("kept %s..%s, want 24..39", rc.given[0].name, rc.given[len(rc.given)-1].name)
	}
}

func TestNoRecordNodeCap(t *testing.T) {
	if rc := newRecordNodeCap(0, nil); rc != nil {
		t.Fatal("limit 0 made a cap")
	}
	var rc *recordNodeCap
	rc.added(nil, "x") // a nil cap notes nothing
}
