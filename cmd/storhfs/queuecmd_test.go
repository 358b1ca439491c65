package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One job's life through the queue commands: enqueue (arguments and
// stdin), claim in order, fail back to pending, complete, requeue, and
// claim of an empty queue (exit 4, nothing printed).
func TestQueueJobLifecycle(t *testing.T) {
	root := t.TempDir()
	ids := strings.Fields(mustRun(t, "enqueue", "--create", root, "mail", `{"to":"ann"}`, `{"to":"bob","n":1.0}`))
	r := runCLI(t, "{\"to\":\"cy\"}\n\n{\"to\":\"dé\"}\n", "enqueue", root, "mail")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("enqueue from stdin: exit %d, stderr %q", r.code, r.stderr)
	}
	ids = append(ids, strings.Fields(r.stdout)...)
	if len(ids) != 4 {
		t.Fatalf("enqueue printed ids %q, want 4", ids)
	}

	claim := func() (id string, data map[string]any) {
		t.Helper()
		var job struct {
			ID   string         `json:"id"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, "claim", root, "mail")), &job); err != nil {
			t.Fatal(err)
		}
		return job.ID, job.Data
	}
	if id, data := claim(); id != ids[0] || data["to"] != "ann" {
		t.Fatalf("first claim %s %v, want %s ann", id, data, ids[0])
	}
	if got := mustRun(t, "claim", root, "mail"); got != `{"id":"`+ids[1]+`","data":{"to":"bob","n":1.0}}`+"\n" {
		t.Fatalf("second claim printed %q", got)
	}
	if got := mustRun(t, "fail", root, "mail", ids[0], ids[2]); got != "1\n" {
		t.Fatalf("fail of one processing and one pending job printed %q, want 1", got)
	}
	if got := mustRun(t, "complete", root, "mail", ids[1], ids[1]); got != "1\n" {
		t.Fatalf("complete printed %q, want 1", got)
	}
	// The failed job is retried after the jobs that were pending.
	for _, want := range []string{ids[2], ids[3], ids[0]} {
		if id, _ := claim(); id != want {
			t.Fatalf("claimed %s, want %s", id, want)
		}
	}
	if r := runCLI(t, "", "claim", root, "mail"); r.code != exitNoJob || r.stdout != "" || r.stderr != "" {
		t.Fatalf("claim of an empty queue: exit %d, stdout %q, stderr %q; want %d and no output", r.code, r.stdout, r.stderr, exitNoJob)
	}
	if got := mustRun(t, "requeue", "--timeout", "0", root, "mail"); got != "3\n" {
		t.Fatalf("requeue --timeout 0 printed %q, want 3", got)
	}
	if got := mustRun(t, "complete", "--forget", root, "mail", ids[2]); got != "0\n" {
		t.Fatalf("complete of a pending job printed %q, want 0", got)
	}
	var stats struct{ Pending, Processing, Done int }
	if err := json.Unmarshal([]byte(mustRun(t, "stats", root, "mail", "queue")), &stats); err != nil {
		t.Fatal(err)
	}
	if stats.Pending != 3 || stats.Processing != 0 || stats.Done != 1 {
		t.Fatalf("stats %+v, want 3 pending, 1 done", stats)
	}
	if r := runCLI(t, "", "verify", "--strict", root, "mail", "queue"); r.code != 0 {
		t.Fatalf("verify after the commands: exit %d %s", r.code, r.stdout)
	}
}

// Bad input to the queue commands: a clear one-line error naming the
// argument, the right exit code, and nothing written.
func TestQueueCommandErrors(t *testing.T) {
	root := t.TempDir()
	makeDoc(t, root)
	makeQueue(t, root)
	logBefore := fileLen(t, filepath.Join(root, "jobs", "queue.log"))
	for _, tc := range []struct {
		name, stdin string
		args        []string
		code        int
		stderrHas   string
	}{
		{"broken JSON argument", "", []string{"enqueue", root, "jobs", `{"a":1}`, `{"a":`}, exitUsage, `argument 4 "{\"a\":": invalid JSON`},
		{"scalar payload", "", []string{"enqueue", root, "jobs", `7`}, exitUsage, `argument 3 "7": want a JSON object or array`},
		{"list payload", "", []string{"enqueue", root, "jobs", `["x"]`}, exitUsage, `key 0 would be dropped`},
		{"broken stdin line", "{\"a\":1}\nnope\n", []string{"enqueue", root, "jobs"}, exitError, `stdin line 2 "nope": invalid JSON`},
		{"unknown queue", "", []string{"claim", root, "mial"}, exitError, "Collection does not exist: " + root + "/mial"},
		{"enqueue to unknown queue", "", []string{"enqueue", root, "mial", `{}`}, exitError, "Collection does not exist: " + root + "/mial"},
		{"DocStore as queue", "", []string{"claim", root, "pages"}, exitError, root + "/pages is a DocStore collection, not a Queue: storhfs claim works on Queue collections only"},
		{"bad id", "", []string{"complete", root, "jobs", "018bcfe5-6800-7000-8000-000000000001", "nope"}, exitUsage, `argument 4: "nope" is not a UUIDv7 id`},
		{"no id", "", []string{"fail", root, "jobs"}, exitUsage, "need ROOT, QUEUE and at least one ID"},
		{"requeue without timeout", "", []string{"requeue", root, "jobs"}, exitUsage, "missing --timeout SECONDS"},
		{"claim extra argument", "", []string{"claim", root, "jobs", "x"}, exitUsage, "need ROOT and QUEUE"},
		{"flag after ROOT", "", []string{"enqueue", root, "jobs", "--create", `{}`}, exitUsage, "flag --create after ROOT: flags go before ROOT"},
		{"missing root", "", []string{"claim", filepath.Join(root, "nope"), "jobs"}, exitError, "does not exist"},
	} {
		r := runCLI(t, tc.stdin, tc.args...)
		if r.code != tc.code || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tc.stderrHas) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", tc.name, r.code, r.stdout, r.stderr, tc.code, tc.stderrHas)
		}
	}
	if got := fileLen(t, filepath.Join(root, "jobs", "queue.log")); got != logBefore {
		t.Errorf("queue.log grew from %d to %d bytes on refused input", logBefore, got)
	}
	if _, err := os.Stat(filepath.Join(root, "mial")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the unknown queue was created (stat: %v)", err)
	}
}
