package integration

import (
	"fmt"
	"strings"
	"testing"
)

// The co-operation tests' judges catch what they are there to catch: each
// planted fault below must be reported (and its honest twin must not).
func TestCoopJudgesCatchPlantedFaults(t *testing.T) {
	const id = "01a23413-e430-77c5-926d-fc8a3d828dcf"
	put := func(w string, n int, t0, t1 int64) docOp {
		return docOp{W: w, N: n, Op: "put", ID: id, OK: true, T0: t0, T1: t1,
			Data: docData{W: w, N: n, Slug: fmt.Sprintf("s-%s-%d", w, n)}.asMap()}
	}
	refused := func(w string, n int, t0, t1 int64) docOp {
		op := put(w, n, t0, t1)
		op.OK = false
		return op
	}
	del := func(w string, n int, t0, t1 int64) docOp {
		return docOp{W: w, N: n, Op: "delete", ID: id, OK: true, T0: t0, T1: t1}
	}
	caught := func(run func(p *problems)) bool {
		var p problems
		run(&p)
		return len(p.byKey) > 0
	}
	doc := []struct {
		name  string
		ops   []docOp
		final map[string]any
		fails bool
	}{
		{"last put present", []docOp{put("a", 1, 0, 10), put("a", 2, 20, 30)}, put("a", 2, 0, 0).Data, false},
		{"lost write: an older put present", []docOp{put("a", 1, 0, 10), put("a", 2, 20, 30)}, put("a", 1, 0, 0).Data, true},
		{"lost write: record absent", []docOp{put("a", 1, 0, 10)}, nil, true},
		{"lost delete", []docOp{put("a", 1, 0, 10), del("a", 2, 20, 30)}, put("a", 1, 0, 0).Data, true},
		{"refused put present", []docOp{put("a", 1, 0, 10), refused("a", 2, 20, 30)}, put("a", 2, 0, 0).Data, true},
		{"overlapping puts: either may win", []docOp{put("a", 1, 0, 30), put("b", 1, 10, 20)}, put("a", 1, 0, 0).Data, false},
		{"overlapping put and delete: absent", []docOp{put("a", 1, 0, 30), del("b", 1, 10, 20)}, nil, false},
	}
	for _, c := range doc {
		if got := caught(func(p *problems) { judgeDocID(id, c.ops, c.final, p) }); got != c.fails {
			t.Errorf("judgeDocID, %s: reported %v, want %v", c.name, got, c.fails)
		}
	}
	byAttempt := map[string]docOp{"a/1": put("a", 1, 0, 10), "a/2": refused("a", 2, 0, 10)}
	// A new record is being written through the mount during [40, 50].
	creating := func(_ string, t0, t1 int64) bool { return t0 <= 50 && 40 <= t1 }
	seen := func(how string, t0, t1 int64, content string) bool {
		return caught(func(p *problems) {
			checkDocSeen(docSeen{how: how, id: id, content: content, t0: t0, t1: t1}, byAttempt, creating, p)
		})
	}
	refusedText := recordText(id, docData{W: "a", N: 2, Slug: "s-a-2"}, false)
	if seen("cat", 20, 30, recordText(id, docData{W: "a", N: 1, Slug: "s-a-1"}, true)) {
		t.Errorf("checkDocSeen reported an acknowledged version")
	}
	if !seen("cat", 20, 30, refusedText) {
		t.Errorf("checkDocSeen missed a refused version read after its refusal")
	}
	if seen("cat", 5, 30, refusedText) {
		t.Errorf("checkDocSeen reported a write in progress read through the mount")
	}
	if !seen("storhfs get", 5, 30, refusedText) {
		t.Errorf("checkDocSeen missed a refused version read from ROOT")
	}
	if !seen("cat", 20, 30, `{"id":"`+id+`","data":{"w":"a","n":1,"slug":"s-a-1","kind":"","sc`) {
		t.Errorf("checkDocSeen missed a torn record")
	}
	if seen("cat", 45, 46, `{"id":"`+id+`","data":{"w":"a","n":3`) || seen("cat", 45, 46, "") {
		t.Errorf("checkDocSeen reported a new record read while it is being written")
	}
	if !seen("storhfs get", 45, 46, "") {
		t.Errorf("checkDocSeen missed an empty record read from ROOT")
	}
	failed := func(t0, t1 int64) bool {
		return caught(func(p *problems) {
			checkDocSeen(docSeen{how: "jq", id: id, failed: "exit status 2", t0: t0, t1: t1}, byAttempt, creating, p)
		})
	}
	if !failed(20, 30) {
		t.Errorf("checkDocSeen missed a read that failed with nothing in progress")
	}
	if failed(45, 46) {
		t.Errorf("checkDocSeen reported a read that failed while the record was being written")
	}

	payloads := map[string]map[string]any{id: {"w": "p", "n": 1.0}}
	enq := `{"op":"enqueue","id":"` + id + `","payload":{"w":"p","n":1},"ts":1}` + "\n"
	claim := `{"op":"claim","id":"` + id + `","ts":1}` + "\n"
	queue := []struct {
		name, view, content string
		fails               bool
	}{
		{"a possible history", "events.ndjson", enq + claim, false},
		{"a job claimed twice", "events.ndjson", enq + claim + claim, true},
		{"a claim before the enqueue", "events.ndjson", claim + enq, true},
		{"a job pending twice", "pending.ndjson", `{"id":"` + id + `","payload":{"w":"p","n":1}}` + "\n" + `{"id":"` + id + `","payload":{"w":"p","n":1}}` + "\n", true},
		{"a foreign payload", "pending.ndjson", `{"id":"` + id + `","payload":{"w":"p","n":2}}` + "\n", true},
		{"a torn line", "done.ndjson", `{"id":"` + id, true},
	}
	for _, c := range queue {
		if got := caught(func(p *problems) { checkQueueView(c.view, c.content, true, payloads, p) }); got != c.fails {
			t.Errorf("checkQueueView, %s: reported %v, want %v", c.name, got, c.fails)
		}
	}

	ids := []string{id, "01a23413-e430-77c5-926d-fc8a3d828dd0", "01a23413-e430-77c5-926d-fc8a3d828dd1"}
	appended := map[string]string{"a/1": ids[0], "a/2": ids[1], "a/3": ids[2]}
	line := func(i int) string {
		return fmt.Sprintf(`{"id":"%s","data":{"w":"a","n":%d}}`+"\n", ids[i-1], i)
	}
	logs := []struct {
		name, content string
		fails         bool
	}{
		{"in order", line(1) + line(2) + line(3), false},
		{"out of order", line(1) + line(3) + line(2), true},
		{"a gap", line(1) + line(3), true},
		{"an id twice", line(1) + line(2) + line(2), true},
		{"NUL bytes", line(1) + strings.Repeat("\x00", 10), true},
	}
	for _, c := range logs {
		if got := caught(func(p *problems) {
			checkLogView(logSeen{what: "records.ndjson", content: c.content, whole: true}, appended, p)
		}); got != c.fails {
			t.Errorf("checkLogView, %s: reported %v, want %v", c.name, got, c.fails)
		}
	}
}
