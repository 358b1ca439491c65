package integration

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// exitNoJob is `storhfs claim`'s exit status when no job is pending
// (cmd/storhfs/queuecmd.go).
const exitNoJob = 4

// TestCoopQueueCLI: PHP producers and workers (testdata/php/queue_client.php)
// and storhfs's queue commands work one queue at once, with no mount: two
// shell-style workers loop `storhfs claim` / `storhfs complete`, a third
// process enqueues with `storhfs enqueue` from stdin. Nothing requeues, so
// a job handed out twice is a failure outright; at the end the queue's
// counts are exactly what the clients were told, and PHP verifies it.
func TestCoopQueueCLI(t *testing.T) {
	o := requireOracle(t)
	dur := coopDuration(t)
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	const name = "jobs"
	mustOK(t, os.Mkdir(root, 0o755))
	runOK(t, "", storhfsBin, "enqueue", "--create", root, name, `{"w":"seed","n":0}`)

	var php []*groupProc
	var logs []string
	for i, c := range []struct{ role, w string }{{"producer", "pp1"}, {"worker", "pw1"}, {"worker", "pw2"}} {
		log := filepath.Join(tmp, c.w+".log")
		logs = append(logs, log)
		php = append(php, startGroup(t, dur+time.Minute, o.env(), "php", phpScript("queue_client.php"),
			root, name, c.role, c.w, fmt.Sprint(dur.Seconds()), fmt.Sprint(i+1), log))
	}

	deadline := time.Now().Add(dur)
	var probs problems
	var mu sync.Mutex
	var calls []queueCall
	add := func(c queueCall) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, c)
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { // storhfs enqueue, three jobs a call from stdin
		defer wg.Done()
		for n := 1; time.Now().Before(deadline); n += 3 {
			c := queueCall{W: "ce", Op: "enqueue"}
			var in []byte
			c.Payloads, in = numberedPayloads("ce", n, 3)
			out, err, _, _ := coopCmd(in, storhfsBin, "enqueue", root, name)
			if c.IDs = strings.Fields(out); err != nil || len(c.IDs) != 3 {
				probs.add("storhfs enqueue failed", "%v: %s", err, out)
				return
			}
			add(c)
		}
	}()
	for _, w := range []string{"cw1", "cw2"} {
		go func() { // storhfs claim, then complete (kept as done, or forgotten)
			defer wg.Done()
			for k := 0; time.Now().Before(deadline); k++ {
				out, err, _, _ := coopCmd(nil, storhfsBin, "claim", root, name)
				if exitCode(err) == exitNoJob && out == "" {
					time.Sleep(2 * time.Millisecond)
					continue
				}
				var job struct {
					ID   string         `json:"id"`
					Data map[string]any `json:"data"`
				}
				if err != nil || json.Unmarshal([]byte(out), &job) != nil || job.ID == "" {
					probs.add("storhfs claim failed", "%v: %q", err, out)
					return
				}
				add(queueCall{W: w, Op: "claim", IDs: []string{job.ID}, Payloads: []map[string]any{job.Data}})
				keep := k%2 == 0
				args := []string{"complete", root, name, job.ID}
				if !keep {
					args = []string{"complete", "--forget", root, name, job.ID}
				}
				out, err, _, _ = coopCmd(nil, storhfsBin, args...)
				if err != nil || out != "1\n" {
					probs.add("storhfs complete of a job it claimed did not complete it", "%s: %v: %q", job.ID, err, out)
					return
				}
				add(queueCall{W: w, Op: "complete", IDs: []string{job.ID}, Keep: keep})
			}
		}()
	}
	wg.Wait()
	for _, p := range php {
		p.wait(t, time.Minute)
	}

	all := slices.Clone(calls)
	for _, l := range logs {
		all = append(all, readNDJSON[queueCall](t, l)...)
	}
	payloads := map[string]map[string]any{}
	claimedBy := map[string][]string{}
	var done, forgotten, cliClaims int
	for _, c := range all {
		switch c.Op {
		case "enqueue":
			for i, id := range c.IDs {
				payloads[id] = c.Payloads[i]
			}
		case "claim":
			for i, id := range c.IDs {
				claimedBy[id] = append(claimedBy[id], c.W)
				if c.Payloads != nil {
					cliClaims++
					if want, ok := payloads[id]; ok && fmt.Sprint(want) != fmt.Sprint(c.Payloads[i]) {
						probs.add("storhfs claim printed another payload than was enqueued", "%s: %v, enqueued %v", id, c.Payloads[i], want)
					}
				}
			}
		case "complete":
			if c.Keep {
				done += len(c.IDs)
			} else {
				forgotten += len(c.IDs)
			}
		default:
			probs.add("a PHP queue client failed", "%s: %s", c.W, c.Err)
		}
	}
	t.Logf("jobs enqueued %d, claimed %d (%d by storhfs claim), completed %d kept + %d forgotten",
		len(payloads)+1, len(claimedBy), cliClaims, done, forgotten)
	if cliClaims == 0 {
		t.Errorf("storhfs claim never got a job: the scenario did not exercise it")
	}
	for id, by := range claimedBy {
		if len(by) > 1 {
			probs.add("a job was handed out more than once", "%s claimed by %v", id, by)
		}
	}
	probs.report(t)

	// Every worker completed what it claimed: nothing is processing, and
	// pending and done are what the clients were told (+1: the seed job).
	var stats struct{ Pending, Processing, Done int }
	if err := json.Unmarshal([]byte(runOK(t, "", storhfsBin, "stats", root, name, "queue")), &stats); err != nil {
		t.Fatal(err)
	}
	enqueued := 1
	for _, c := range all {
		if c.Op == "enqueue" {
			enqueued += len(c.IDs)
		}
	}
	if want := (struct{ Pending, Processing, Done int }{enqueued - len(claimedBy), 0, done}); stats != want {
		t.Errorf("queue stats %+v, want %+v from the clients' acknowledgements", stats, want)
	}
	o.verifyPHP(t, root, name, "queue")
}

// exitCode is a finished command's exit status (-1 when it did not exit).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}
