package integration

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/uuidv7"
)

// queueCall is one queue call that returned, as every client logs it
// (testdata/php/queue_client.php writes the same JSON).
type queueCall struct {
	W        string           `json:"w"`
	Op       string           `json:"op"` // enqueue, claim, complete
	IDs      []string         `json:"ids"`
	Payloads []map[string]any `json:"payloads,omitempty"` // enqueue: IDs[i]'s payload
	Keep     bool             `json:"keep,omitempty"`     // complete: kept as done
	Err      string           `json:"err,omitempty"`
	T0       int64            `json:"t0"`
	T1       int64            `json:"t1"`
}

// TestCoopQueue: PHP producers enqueue (single and batches), PHP workers
// and a storhfs worker (the Go engine) claim and complete, a storhfs
// producer enqueues, while readers read pending, processing, done and
// events.ndjson through the mount. No claim times out (nothing requeues),
// so a job handed to two workers, or twice to one, is a failure outright.
// Every view read must be valid on its own: well-formed lines, unique ids,
// payloads as enqueued, and events.ndjson a history the queue can have
// had (each job enqueued once, claimed at most once and only while
// pending, completed only while processing).
func TestCoopQueue(t *testing.T) {
	requireFuse(t, "cat", "tail")
	o := requireOracle(t)
	root := filepath.Join(t.TempDir(), "root")
	coopQueue(t, o, coopDuration(t), coopHosts{php: root, b: root})
}

// coopQueue is TestCoopQueue's scenario on hosts: PHP clients on
// hosts.php, the mount and the storhfs worker and producer on hosts.b.
func coopQueue(t *testing.T, o phpOracle, dur time.Duration, hosts coopHosts) {
	tmp := t.TempDir()
	root, goRoot := hosts.php, hosts.b
	const name = "jobs"
	runOK(t, "", testaidBin, "queue-enqueue", goRoot, name) // an empty queue
	m := startMount(t, goRoot, hosts.mountFlags...)

	deadline := time.Now().Add(dur)
	var php []*groupProc
	var logs []string
	for i, c := range []struct{ role, w string }{{"producer", "pp1"}, {"producer", "pp2"}, {"worker", "pw1"}, {"worker", "pw2"}, {"worker", "pw3"}} {
		log := filepath.Join(tmp, c.w+".log")
		logs = append(logs, log)
		php = append(php, startGroup(t, dur+time.Minute, o.env(), "php", phpScript("queue_client.php"),
			root, name, c.role, c.w, fmt.Sprint(dur.Seconds()), fmt.Sprint(i+1), log))
	}

	var probs problems
	var goMu sync.Mutex
	var goCalls []queueCall
	addCall := func(c queueCall) {
		goMu.Lock()
		defer goMu.Unlock()
		goCalls = append(goCalls, c)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // a storhfs producer
		defer wg.Done()
		for n := 1; time.Now().Before(deadline); n += 3 {
			c := queueCall{W: "gp", Op: "enqueue"}
			var in []byte
			c.Payloads, in = numberedPayloads("gp", n, 3)
			out, err, t0, t1 := coopCmd(in, testaidBin, "queue-enqueue", goRoot, name)
			c.IDs, c.T0, c.T1 = strings.Fields(out), t0, t1
			if err != nil || len(c.IDs) != 3 {
				probs.add("storhfs queue-enqueue failed", "%v: %s", err, out)
				return
			}
			addCall(c)
		}
	}()
	go func() { // a storhfs worker
		defer wg.Done()
		for k := 0; time.Now().Before(deadline); k++ {
			out, err, t0, t1 := coopCmd(nil, testaidBin, "queue-claim", "-n", fmt.Sprint(1+k%3), goRoot, name)
			if err != nil {
				probs.add("storhfs queue-claim failed", "%v: %s", err, out)
				return
			}
			ids := strings.Fields(out)
			addCall(queueCall{W: "gw", Op: "claim", IDs: ids, T0: t0, T1: t1})
			if len(ids) == 0 {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			args := []string{"queue-complete", goRoot, name}
			keep := k%2 == 0
			if keep {
				args = []string{"queue-complete", "--keep", goRoot, name}
			}
			out, err, t0, t1 = coopCmd(nil, testaidBin, append(args, ids...)...)
			if err != nil {
				probs.add("storhfs queue-complete failed", "%v: %s", err, out)
				return
			}
			addCall(queueCall{W: "gw", Op: "complete", IDs: ids, Keep: keep, T0: t0, T1: t1})
		}
	}()
	views := []string{"pending.ndjson", "processing.ndjson", "done.ndjson", "events.ndjson"}
	var seenMu sync.Mutex
	seen := map[string][]string{} // view -> contents read
	var stale atomic.Int64
	readers := until(deadline, 2, func(ri, i int) {
		r := rand.New(rand.NewPCG(uint64(ri), uint64(i)))
		view := views[r.IntN(len(views))]
		args := []string{m.path(name, view)}
		tool := "cat"
		if r.IntN(4) == 0 {
			tool, args = "tail", append([]string{"-n", "5"}, args...)
		}
		out, err, _, _ := coopCmd(nil, tool, args...)
		if err != nil && staleViewOpen(out) {
			stale.Add(1)
			return
		}
		if err != nil {
			probs.add("a view read failed", "%s %s: %v: %s", tool, view, err, out)
			return
		}
		seenMu.Lock()
		defer seenMu.Unlock()
		seen[tool+" "+view] = append(seen[tool+" "+view], out)
	})
	wg.Wait()
	readers.Wait()
	for _, p := range php {
		p.wait(t, time.Minute)
	}

	calls := slices.Clone(goCalls)
	for _, l := range logs {
		calls = append(calls, readNDJSON[queueCall](t, l)...)
	}
	payloads := map[string]map[string]any{} // acknowledged enqueues
	claimedBy := map[string][]string{}
	completed := map[string]queueCall{}
	count := map[string]int{}
	for _, c := range calls {
		count[c.Op] += len(c.IDs)
		switch c.Op {
		case "enqueue":
			for i, id := range c.IDs {
				if _, dup := payloads[id]; dup {
					probs.add("one id was enqueued twice", "%s", id)
				}
				payloads[id] = c.Payloads[i]
			}
		case "claim":
			for _, id := range c.IDs {
				claimedBy[id] = append(claimedBy[id], c.W)
			}
		case "complete":
			for _, id := range c.IDs {
				completed[id] = c
			}
		default:
			probs.add("a queue client failed", "%s: %s", c.W, c.Err)
		}
	}
	reads := 0
	for _, contents := range seen {
		reads += len(contents)
	}
	t.Logf("jobs enqueued %d, claimed %d, completed %d; view reads %d; opens that failed with ESTALE (known defect): %d", count["enqueue"], count["claim"], count["complete"], reads, stale.Load())
	if count["claim"] == 0 {
		t.Errorf("no job was claimed: the scenario did not exercise the workers")
	}
	for id, by := range claimedBy {
		if len(by) > 1 {
			probs.add("a job was handed out more than once", "%s claimed by %v", id, by)
		}
		if payloads[id] == nil {
			probs.add("a worker claimed a job no producer enqueued", "%s claimed by %v", id, by)
		}
	}

	// Every view read during the run was valid on its own.
	for key, contents := range seen {
		view := strings.Fields(key)[1]
		whole := strings.HasPrefix(key, "cat ")
		for _, content := range contents {
			checkQueueView(view, content, whole, payloads, &probs)
		}
	}

	// The final views agree with what every client was told.
	final := map[string]map[string]bool{}
	for _, view := range views[:3] {
		final[view] = map[string]bool{}
		for _, line := range splitLines(readFile(t, m.path(name, view))) {
			var v struct{ ID string }
			json.Unmarshal([]byte(line), &v)
			final[view][v.ID] = true
		}
	}
	for id := range payloads {
		var want string
		switch c, done := completed[id]; {
		case done && c.Keep:
			want = "done.ndjson"
		case done:
			want = ""
		case claimedBy[id] != nil:
			want = "processing.ndjson"
		default:
			want = "pending.ndjson"
		}
		for _, view := range views[:3] {
			if final[view][id] != (view == want) {
				probs.add("a job's final state disagrees with the clients' acknowledgements", "%s: in %s %v, want it in %q only", id, view, final[view][id], want)
			}
		}
	}
	events := string(readFile(t, m.path(name, "events.ndjson")))
	claimEvents := 0
	for _, line := range splitLines([]byte(events)) {
		if strings.Contains(line, `"op":"claim"`) {
			claimEvents++
		}
	}
	if claimEvents != count["claim"] {
		probs.add("events.ndjson's claims differ from the claims workers got", "%d claim events, %d claims", claimEvents, count["claim"])
	}
	probs.report(t)
	mustOK(t, m.stop())
	o.verifyPHP(t, root, name, "queue")
	verifyGo(t, goRoot, name, "queue")
}

func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// checkQueueView checks one read of a queue view: every line a JSON object
// with a valid id, each id once, payloads as enqueued; for a whole
// events.ndjson (whole: read from the start), a possible history.
func checkQueueView(view, content string, whole bool, payloads map[string]map[string]any, probs *problems) {
	if content != "" && !strings.HasSuffix(content, "\n") {
		probs.add("a view read ends in a torn line", "%s: %q", view, content[max(0, len(content)-80):])
		return
	}
	ids := map[string]bool{}
	state := map[string]string{} // events: id -> pending, processing, done
	for _, line := range splitLines([]byte(content)) {
		var v struct {
			Op      string         `json:"op"`
			ID      string         `json:"id"`
			Payload map[string]any `json:"payload"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil || !uuidv7.Valid(v.ID) {
			probs.add("a view line is not a valid JSON line with an id", "%s: %q (%v)", view, line, err)
			return
		}
		if view != "events.ndjson" {
			if ids[v.ID] {
				probs.add("a view lists one job twice", "%s: %s", view, v.ID)
			}
			ids[v.ID] = true
			if view != "done.ndjson" && !reflect.DeepEqual(v.Payload, payloads[v.ID]) {
				probs.add("a view shows a payload no producer enqueued", "%s: %q", view, line)
			}
			continue
		}
		if !whole {
			continue
		}
		from, to := map[string]string{"enqueue": "", "claim": "pending", "complete": "processing"}[v.Op], map[string]string{"enqueue": "pending", "claim": "processing", "complete": "done"}[v.Op]
		if to == "" || state[v.ID] != from {
			probs.add("events.ndjson shows an impossible history", "%s of %s in state %q", v.Op, v.ID, state[v.ID])
		}
		state[v.ID] = to
		if v.Op == "enqueue" && !reflect.DeepEqual(v.Payload, payloads[v.ID]) {
			probs.add("events.ndjson shows a payload no producer enqueued", "%q", line)
		}
	}
}

// numberedPayloads are count payloads {"w":w,"n":n...n+count-1} and the same
// as NDJSON, for a producer's one enqueue call.
func numberedPayloads(w string, n, count int) (payloads []map[string]any, ndjson []byte) {
	for k := range count {
		p := map[string]any{"w": w, "n": float64(n + k)}
		payloads = append(payloads, p)
		b, _ := json.Marshal(p)
		ndjson = append(append(ndjson, b...), '\n')
	}
	return payloads, ndjson
}
