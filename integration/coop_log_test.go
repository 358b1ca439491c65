package integration

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/uuidv7"
)

// logCall is one SegmentedLog call that returned, as every client logs it
// (testdata/php/log_client.php writes the same JSON).
type logCall struct {
	W     string           `json:"w"`
	Op    string           `json:"op"` // append, compact
	IDs   []string         `json:"ids,omitempty"`
	Datas []map[string]any `json:"datas,omitempty"`
	Err   string           `json:"err,omitempty"`
	T0    int64            `json:"t0"`
	T1    int64            `json:"t1"`
}

// logSeen is one read of a log view during the run.
type logSeen struct {
	what    string // the tool and view
	content string
	whole   bool // read from the start (cat), not a tail
	segment bool // a segment's payload lines, not records.ndjson
}

// TestCoopSegmentedLog: two PHP clients append single records and batches
// (appendMany) into 16 KiB segments (so they roll), a storhfs writer (the
// Go engine) appends batches, and a PHP client compacts the log once
// halfway, while readers cat and tail records.ndjson and segments/*.ndjson
// through the mount. Records carry {"w": writer, "n": 1, 2, ...}; nothing
// is overwritten or deleted, so every read of records.ndjson must hold
// each writer's records in append order, and a whole read must hold every
// writer's records 1..k without a gap (a record is appended only after
// its predecessors were acknowledged). Every line must be valid JSON with
// a valid id, each id once, data as appended.
func TestCoopSegmentedLog(t *testing.T) {
	requireFuse(t, "cat", "tail", "ls")
	o := requireOracle(t)
	dur := coopDuration(t)
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	const coll = "events"
	sh(t, "", fmt.Sprintf(`printf '{"w":"seed","n":1}\n' | %s log-append %s %s`, testaidBin, root, coll))
	m := startMount(t, root)

	deadline := time.Now().Add(dur)
	var php []*groupProc
	var logs []string
	for i, c := range []struct{ role, w string }{{"appender", "la1"}, {"appender", "la2"}, {"compactor", "lc"}} {
		log := filepath.Join(tmp, c.w+".log")
		logs = append(logs, log)
		php = append(php, startGroup(t, dur+time.Minute, o.env(), "php", phpScript("log_client.php"),
			root, coll, c.role, c.w, fmt.Sprint(dur.Seconds()), fmt.Sprint(i+1), log))
	}

	var probs problems
	var goCalls []logCall
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a storhfs appender: ids are the engine's, data names the record
		defer wg.Done()
		for n := 1; time.Now().Before(deadline); {
			c := logCall{W: "lg", Op: "append"}
			var in strings.Builder
			for range 1 + n%4 {
				d := map[string]any{"w": "lg", "n": float64(n)}
				n++
				c.Datas = append(c.Datas, d)
				b, _ := json.Marshal(d)
				in.Write(append(b, '\n'))
			}
			out, err, t0, t1 := coopCmd([]byte(in.String()), testaidBin, "log-append", "--max-segment-bytes", "16384", root, coll)
			if err != nil {
				probs.add("storhfs log-append failed", "%v: %s", err, out)
				return
			}
			c.T0, c.T1 = t0, t1
			goCalls = append(goCalls, c)
		}
	}()
	var seenMu sync.Mutex
	var seen []logSeen
	var stale atomic.Int64
	readers := until(deadline, 2, func(ri, i int) {
		r := rand.New(rand.NewPCG(uint64(ri), uint64(i)))
		s := logSeen{whole: r.IntN(3) != 0}
		path := m.path(coll, "records.ndjson")
		if r.IntN(2) == 0 {
			out, err, _, _ := coopCmd(nil, "ls", m.path(coll, "segments"))
			segs := strings.Fields(out)
			if err != nil || len(segs) == 0 {
				probs.add("ls segments/ failed", "%v: %s", err, out)
				return
			}
			s.segment = true
			path = m.path(coll, "segments", segs[r.IntN(len(segs))])
		}
		args := []string{path}
		tool := "cat"
		if !s.whole {
			tool, args = "tail", append([]string{"-n", "20"}, args...)
		}
		out, err, _, t1 := coopCmd(nil, tool, args...)
		if err != nil {
			// A segment listed a moment ago may be gone: the compaction
			// replaces segments.
			if staleViewOpen(out) {
				stale.Add(1)
			} else if !(s.segment && strings.Contains(out, "No such file")) {
				probs.add("a view read failed", "%s %s ending at %d: %v: %s", tool, filepath.Base(path), t1, err, out)
			}
			return
		}
		s.what, s.content = tool+" "+filepath.Base(path), out
		seenMu.Lock()
		defer seenMu.Unlock()
		seen = append(seen, s)
	})
	wg.Wait()
	readers.Wait()
	for _, p := range php {
		p.wait(t, time.Minute)
	}

	calls := slices.Clone(goCalls)
	for _, l := range logs {
		calls = append(calls, readNDJSON[logCall](t, l)...)
	}
	// appended: "w/n" -> the record's id ("" where the engine chose it
	// and did not say: the storhfs writer's).
	appended := map[string]string{"seed/1": ""}
	compacted := 0
	for _, c := range calls {
		switch c.Op {
		case "append":
			for i, d := range c.Datas {
				id := ""
				if c.IDs != nil {
					id = c.IDs[i]
				}
				appended[fmt.Sprintf("%v/%v", d["w"], d["n"])] = id
			}
		case "compact":
			compacted++
			t.Logf("the compaction ran in [%d, %d]", c.T0, c.T1)
		default:
			probs.add("a log client failed", "%s: %s", c.W, c.Err)
		}
	}
	t.Logf("records appended %d, compactions %d, view reads %d; opens that failed with ESTALE (known defect): %d", len(appended), compacted, len(seen), stale.Load())
	if compacted != 1 {
		t.Errorf("%d compactions ran, want 1", compacted)
	}
	for _, s := range seen {
		checkLogView(s, appended, &probs)
	}

	// The final records.ndjson holds every acknowledged record once.
	final := string(readFile(t, m.path(coll, "records.ndjson")))
	checkLogView(logSeen{what: "final records.ndjson", content: final, whole: true}, appended, &probs)
	if n := len(splitLines([]byte(final))); n != len(appended) {
		probs.add("the final records.ndjson does not hold every acknowledged record", "%d lines, %d records appended", n, len(appended))
	}
	probs.report(t)
	mustOK(t, m.stop())
	o.verifyPHP(t, root, coll, "log")
	verifyGo(t, root, coll, "log")
}

// checkLogView checks one read of records.ndjson or a segment's file.
func checkLogView(s logSeen, appended map[string]string, probs *problems) {
	if i := strings.IndexByte(s.content, 0); i >= 0 {
		probs.add("a view read holds NUL bytes", "%s: %d bytes, NUL from byte %d (%d lines before it): %q", s.what, len(s.content), i, strings.Count(s.content[:i], "\n"), s.content[max(0, i-100):min(len(s.content), i+20)])
		return
	}
	if s.content != "" && !strings.HasSuffix(s.content, "\n") {
		probs.add("a view read ends in a torn line", "%s: %q", s.what, s.content[max(0, len(s.content)-80):])
		return
	}
	ids := map[string]bool{}
	last := map[string]int{} // writer -> last n seen
	for _, line := range splitLines([]byte(s.content)) {
		var rec map[string]json.RawMessage
		var id string
		var data map[string]any
		err := json.Unmarshal([]byte(line), &rec)
		if err == nil {
			err = json.Unmarshal(rec["id"], &id)
		}
		if err == nil {
			err = json.Unmarshal(rec["data"], &data)
		}
		keys := 2
		if s.segment {
			keys = 3 // a payload line: {"op":"put","id":..,"data":..}
			if string(rec["op"]) != `"put"` {
				err = fmt.Errorf("op %s, want put (nothing is overwritten or deleted)", rec["op"])
			}
		}
		if err != nil || len(rec) != keys || !uuidv7.Valid(id) {
			probs.add("a view line is not a valid record line", "%s: %q (%v)", s.what, line, err)
			return
		}
		if ids[id] {
			probs.add("a view shows one id twice", "%s: %s", s.what, id)
		}
		ids[id] = true
		w, _ := data["w"].(string)
		nf, _ := data["n"].(float64)
		n := int(nf)
		want, ok := appended[fmt.Sprintf("%s/%d", w, n)]
		if !ok || len(data) != 2 || (want != "" && want != id) {
			probs.add("a view shows a record no writer appended", "%s: %q", s.what, line)
			continue
		}
		prev, seenW := last[w]
		switch {
		case seenW && n <= prev:
			probs.add("a view shows one writer's records out of append order", "%s: %s/%d after %s/%d", s.what, w, n, w, prev)
		case !s.segment && s.whole && n != prev+1:
			probs.add("a whole records.ndjson misses a record appended before one it shows", "%s: %s/%d follows %s/%d", s.what, w, n, w, prev)
		}
		last[w] = n
	}
}
