package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/internal/corpus"
)

// append writes records PHP reads back as given, and get prints them as
// PHP's get() returns them; a deleted record is not found.
func TestAppendThenGetLogRecords(t *testing.T) {
	root := t.TempDir()
	ids := strings.Fields(mustRun(t, "append", "--create", root, "events", `{"type":"login","user":"ann","ratio":1.0}`, `{}`))
	r := runCLI(t, "{\"type\":\"logout\",\"path\":\"/a/é\"}\n\n{\"id\":\"x\",\"data\":{\"n\":1}}\n", "append", root, "events")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("append from stdin: exit %d, stderr %q", r.code, r.stderr)
	}
	ids = append(ids, strings.Fields(r.stdout)...)
	want := []string{
		`{"type":"login","user":"ann","ratio":1.0}`,
		`[]`,
		`{"type":"logout","path":"/a/é"}`,
		`{"id":"x","data":{"n":1}}`, // a line is the data, never an appendMany row
	}
	if len(ids) != len(want) {
		t.Fatalf("append printed %q, want %d ids", ids, len(want))
	}
	for i, id := range ids {
		if got := mustRun(t, "get", root, "events", id); got != `{"id":"`+id+`","data":`+want[i]+"}\n" {
			t.Errorf("get %s = %q, want data %s", id, got, want[i])
		}
		if got := mustRun(t, "get", "--data", root, "events", id); got != want[i]+"\n" {
			t.Errorf("get --data %s = %q, want %s", id, got, want[i])
		}
	}
	if o, _ := corpus.FindOracle(); o != nil {
		// PHP's get() of each record, as storh's JSON.
		script := `require getenv('STORH_AUTOLOAD'); $l = new Storh\SegmentedLog($argv[1], 'events');
foreach (array_slice($argv, 2) as $id) { echo json_encode($l->get($id)->data(), JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION), "\n"; }`
		cmd := exec.Command(o.PHP, append([]string{"-r", script, root}, ids...)...)
		cmd.Env = o.Env()
		out, err := cmd.CombinedOutput()
		if err != nil || string(out) != strings.Join(want, "\n")+"\n" {
			t.Errorf("PHP reads back %q (%v), want %q", out, err, want)
		}
	} else {
		t.Log("PHP oracle not found: the PHP read-back is skipped")
	}
	if _, err := os.Stat(filepath.Join(root, "events", "manifest.jsonc")); err != nil {
		t.Fatal(err)
	}
	makeLog(t, root) // events also gets idA and idB; idB is deleted
	if r := runCLI(t, "", "get", root, "events", idB); r.code != exitError || r.stderr != "Record not found: "+idB+"\n" {
		t.Errorf("get of a deleted log record: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Bad input to append and get: one clear line naming the argument, the
// right exit code, nothing written or created.
func TestLogCommandErrors(t *testing.T) {
	root := t.TempDir()
	makeDoc(t, root)
	makeLog(t, root)
	makeQueue(t, root)
	segments := filepath.Join(root, "events", "segments")
	before := dirBytes(t, segments, ".ndjson")
	for _, tc := range []struct {
		name, stdin string
		args        []string
		code        int
		stderrHas   string
	}{
		{"broken JSON argument", "", []string{"append", root, "events", `{"a":1}`, `{"a"`}, exitUsage, `argument 4 "{\"a\"": invalid JSON`},
		{"scalar record", "", []string{"append", root, "events", `"text"`}, exitUsage, `argument 3 "\"text\"": want a JSON object or array`},
		{"list record", "", []string{"append", root, "events", `[1,2]`}, exitUsage, `key 0 would be dropped`},
		{"broken stdin line", "{}\n{}\n{\n", []string{"append", root, "events"}, exitError, `stdin line 3 "{": invalid JSON`},
		{"unknown log", "", []string{"append", root, "evnets", `{}`}, exitError, "Collection does not exist: " + root + "/evnets"},
		{"queue as log", "", []string{"append", root, "jobs", `{}`}, exitError, root + "/jobs is a Queue collection, not a SegmentedLog: storhfs append works on SegmentedLog collections only"},
		{"DocStore as log", "", []string{"append", root, "pages", `{}`}, exitError, "is a DocStore collection, not a SegmentedLog"},
		{"get bad log id", "", []string{"get", root, "events", "nope"}, exitUsage, `argument 3: "nope" is not a UUIDv7 id`},
		{"get from a queue", "", []string{"get", root, "jobs", idA}, exitError, root + "/jobs is a Queue, not a DocStore or SegmentedLog: storhfs get reads records"},
		{"get missing log record", "", []string{"get", root, "events", idC}, exitError, "Record not found: " + idC},
		{"append without log", "", []string{"append", root}, exitUsage, "need ROOT and LOG"},
	} {
		r := runCLI(t, tc.stdin, tc.args...)
		if r.code != tc.code || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tc.stderrHas) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", tc.name, r.code, r.stdout, r.stderr, tc.code, tc.stderrHas)
		}
	}
	if got := dirBytes(t, segments, ".ndjson"); got != before {
		t.Errorf("segments grew from %d to %d bytes on refused input", before, got)
	}
	if _, err := os.Stat(filepath.Join(root, "evnets")); !os.IsNotExist(err) {
		t.Errorf("the unknown log was created (stat: %v)", err)
	}
}
