package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/core/seglog"
	"github.com/storhfs/storhfs/internal/treetest"
)

// cliBinary is the storhfs binary built by TestMain.
var cliBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "storhfs-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cliBinary = filepath.Join(dir, "storhfs")
	build := exec.Command("go", "build", "-o", cliBinary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building storhfs:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cliRun is one finished run of the binary.
type cliRun struct {
	stdout, stderr string
	code           int
}

func runCLI(t *testing.T, stdin string, args ...string) cliRun {
	t.Helper()
	cmd := exec.Command(cliBinary, args...)
	var out, errOut bytes.Buffer
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("run storhfs %v: %v", args, err)
	}
	return cliRun{stdout: out.String(), stderr: errOut.String(), code: code}
}

// mustRun runs the binary and requires exit code 0 and an empty stderr.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	r := runCLI(t, "", args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("storhfs %v: exit %d, stderr %q, stdout %q", args, r.code, r.stderr, r.stdout)
	}
	return r.stdout
}

const (
	idA = "018bcfe5-6800-7000-8000-000000000001"
	idB = "018bcfe5-6800-7000-8000-000000000002"
	idC = "018bcfe5-6800-7000-8000-000000000003"
)

func obj(kv ...any) *phpjson.Array {
	a := phpjson.NewArray(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		a.SetString(kv[i].(string), kv[i+1])
	}
	return a
}

// makeDoc creates ROOT/pages with two records and returns their total bytes.
func makeDoc(t *testing.T, root string) int64 {
	t.Helper()
	s, err := docstore.Open(root, "pages", docstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, id := range []string{idA, idB} {
		if _, err := s.Put(obj("title", "t-"+id[len(id)-1:], "city", "Zürich"), id); err != nil {
			t.Fatal(err)
		}
	}
	return dirBytes(t, filepath.Join(root, "pages", "data"), ".jsonc")
}

// makeLog creates ROOT/events with puts of A and B and a delete of B.
func makeLog(t *testing.T, root string) {
	t.Helper()
	l, err := seglog.Open(root, "events", seglog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, id := range []string{idA, idB} {
		if _, err := l.Put(obj("n", int64(1)), id); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Delete(idB); err != nil {
		t.Fatal(err)
	}
}

// makeQueue creates ROOT/jobs with three jobs, two of them claimed.
func makeQueue(t *testing.T, root string) {
	t.Helper()
	q, err := queue.Open(root, "jobs", queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for i := 0; i < 3; i++ {
		if _, err := q.Enqueue(obj("n", int64(i)), ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.ClaimMany(2); err != nil {
		t.Fatal(err)
	}
}

func dirBytes(t *testing.T, dir, suffix string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, suffix) {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func fileLen(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestDocCommandsPrintPHPShapes(t *testing.T) {
	root := t.TempDir()
	size := makeDoc(t, root)
	stats := fmt.Sprintf("{\n    \"records\": 2,\n    \"bytes\": %d,\n    \"corrupt\": 0,\n    \"indexes\": 0\n}\n", size)
	nested := strings.ReplaceAll(strings.TrimSuffix(stats, "\n"), "\n", "\n    ")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"stats", root, "pages"}, stats},
		{[]string{"stats", root, "pages", "doc"}, stats},
		{[]string{"verify", root, "pages"}, "{\n    \"ok\": true,\n    \"errors\": [],\n    \"stats\": " + nested + "\n}\n"},
		{[]string{"compact", root, "pages", "doc"}, "{\n    \"ok\": true,\n    \"records\": 2\n}\n"},
		{[]string{"reindex", root, "pages"}, "{\n    \"fields\": 0,\n    \"entries\": 2\n}\n"},
		{[]string{"reindex", root, "pages", "ignored-engine"}, "{\n    \"fields\": 0,\n    \"entries\": 2\n}\n"},
		{[]string{"repair", root, "pages"}, "{\n    \"ok\": true,\n    \"quarantined\": 0,\n    \"reindexed\": {\n        \"fields\": 0,\n        \"entries\": 2\n    }\n}\n"},
	}
	before := treetest.Snapshot(t, filepath.Join(root, "pages"))
	for i, tc := range cases {
		if got := mustRun(t, tc.args...); got != tc.want {
			t.Errorf("storhfs %v:\n got %q\nwant %q", tc.args[:1], got, tc.want)
		}
		if i == 3 { // stats, verify and compact doc are read-only
			treetest.AssertSame(t, "stats/verify/compact doc", before, treetest.Snapshot(t, filepath.Join(root, "pages")))
		}
	}
}

func TestDocCorruptRecord(t *testing.T) {
	root := t.TempDir()
	makeDoc(t, root)
	bad := filepath.Join(root, "pages", "data", "00", idC+".jsonc")
	if err := os.WriteFile(bad, []byte("{not json"), 0o666); err != nil {
		t.Fatal(err)
	}
	got := mustRun(t, "verify", root, "pages")
	if !strings.Contains(got, "\"ok\": false,\n    \"errors\": [\n        \"Corrupt records: 1\"\n    ],") ||
		!strings.Contains(got, "\"corrupt\": 1") {
		t.Errorf("verify with a corrupt record:\n%s", got)
	}
	if r := runCLI(t, "", "verify", "--strict", root, "pages"); r.code != exitNotOK || r.stdout != got {
		t.Errorf("verify --strict: exit %d (want %d), stdout %q", r.code, exitNotOK, r.stdout)
	}
	if r := runCLI(t, "", "reindex", root, "pages"); r.code != 1 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("reindex with a corrupt record: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	got = mustRun(t, "repair", root, "pages")
	if !strings.Contains(got, "\"quarantined\": 1") {
		t.Errorf("repair: %s", got)
	}
	if _, err := os.Stat(bad); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("repair left %s in place", bad)
	}
}

func TestVerifyEscapesNonASCIIPaths(t *testing.T) {
	root := t.TempDir()
	s, err := docstore.Open(root, "pägés😀", docstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SyncIndexes([]docindex.Definition{{Field: "city"}}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(obj("city", "Zürich"), idA); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var eqFile string
	filepath.WalkDir(filepath.Join(root, "pägés😀", ".storh"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "/eq/") && strings.HasSuffix(p, ".jsonc") {
			eqFile = p
		}
		return nil
	})
	if eqFile == "" {
		t.Fatal("no equality index file written")
	}
	if err := os.WriteFile(eqFile, []byte("{oops"), 0o666); err != nil {
		t.Fatal(err)
	}
	got := mustRun(t, "verify", root, "pägés😀")
	escaped := strings.ReplaceAll(eqFile, "pägés😀", `p\u00e4g\u00e9s\ud83d\ude00`)
	if !strings.Contains(got, `"Unreadable index file: `+escaped) || strings.ContainsAny(got, "äé😀") {
		t.Errorf("verify did not print the path as PHP's \\uXXXX JSON:\n%s\nwant it to contain %s", got, escaped)
	}
}

func TestLogCommands(t *testing.T) {
	root := t.TempDir()
	makeLog(t, root)
	seg := filepath.Join(root, "events", "segments", "seg-000001.ndjson")
	stats := func(segments, records, deleted int, size int64) string {
		return fmt.Sprintf("{\n    \"segments\": %d,\n    \"records\": %d,\n    \"deleted\": %d,\n    \"bytes\": %d\n}\n", segments, records, deleted, size)
	}
	want := stats(1, 1, 1, fileLen(t, seg))
	before := treetest.Snapshot(t, filepath.Join(root, "events"))
	if got := mustRun(t, "stats", root, "events", "log"); got != want {
		t.Errorf("stats log:\n got %q\nwant %q", got, want)
	}
	nested := strings.ReplaceAll(strings.TrimSuffix(want, "\n"), "\n", "\n    ")
	if got := mustRun(t, "verify", root, "events", "log"); got != "{\n    \"ok\": true,\n    \"errors\": [],\n    \"stats\": "+nested+"\n}\n" {
		t.Errorf("verify log: %q", got)
	}
	treetest.AssertSame(t, "stats/verify log", before, treetest.Snapshot(t, filepath.Join(root, "events")))

	// compact defaults to log: the tombstoned id is gone afterwards.
	got := mustRun(t, "compact", root, "events")
	if !strings.Contains(got, "\"records\": 1,\n    \"deleted\": 0,") {
		t.Errorf("compact: %s", got)
	}
}

func TestLogTornTailReadOnlyThenRepair(t *testing.T) {
	root := t.TempDir()
	makeLog(t, root)
	seg := filepath.Join(root, "events", "segments", "seg-000001.ndjson")
	valid := fileLen(t, seg)
	appendFile(t, seg, "57\t0123abcd\t{\"op\":\"put\",\"id\":\"01")
	torn := fileLen(t, seg)
	before := treetest.Snapshot(t, filepath.Join(root, "events"))

	got := mustRun(t, "stats", root, "events", "log")
	if want := fmt.Sprintf("{\n    \"segments\": 1,\n    \"records\": 1,\n    \"deleted\": 1,\n    \"bytes\": %d\n}\n", torn); got != want {
		t.Errorf("stats of a torn log:\n got %q\nwant %q", got, want)
	}
	// storh's verify() on an instance whose open kept the valid prefix: the
	// full replay and then the stream each meet the torn line.
	got = mustRun(t, "verify", root, "events", "log")
	wantVerify := fmt.Sprintf("{\n    \"ok\": false,\n    \"errors\": [\n        \"Corrupt segmented log line.\",\n        \"Corrupt segmented log line.\"\n    ],\n    \"stats\": {\n        \"segments\": 1,\n        \"records\": 1,\n        \"deleted\": 1,\n        \"bytes\": %d\n    }\n}\n", torn)
	if got != wantVerify {
		t.Errorf("verify of a torn log:\n got %q\nwant %q", got, wantVerify)
	}
	if r := runCLI(t, "", "verify", "--strict", root, "events", "log"); r.code != exitNotOK {
		t.Errorf("verify --strict of a torn log: exit %d", r.code)
	}
	treetest.AssertSame(t, "stats/verify of a torn log", before, treetest.Snapshot(t, filepath.Join(root, "events")))

	got = mustRun(t, "repair", root, "events", "log")
	if want := fmt.Sprintf("{\n    \"ok\": true,\n    \"stats\": {\n        \"segments\": 1,\n        \"records\": 1,\n        \"deleted\": 1,\n        \"bytes\": %d\n    }\n}\n", valid); got != want {
		t.Errorf("repair log:\n got %q\nwant %q", got, want)
	}
	if n := fileLen(t, seg); n != valid {
		t.Errorf("repair left the segment at %d bytes, want %d", n, valid)
	}
	if got := mustRun(t, "verify", root, "events", "log"); !strings.Contains(got, "\"ok\": true") {
		t.Errorf("verify after repair: %s", got)
	}
}

func TestLogErrorsNameTheRealPath(t *testing.T) {
	root := t.TempDir()
	makeLog(t, root)
	manifest := filepath.Join(root, "events", "manifest.jsonc")
	if err := os.WriteFile(manifest, []byte("{broken"), 0o666); err != nil {
		t.Fatal(err)
	}
	before := treetest.Snapshot(t, filepath.Join(root, "events"))
	for _, cmd := range []string{"stats", "verify"} {
		r := runCLI(t, "", cmd, root, "events", "log")
		if r.code != 1 || r.stdout != "" || r.stderr != "JSONC document must decode to an object. ("+root+"/events)\n" || strings.Contains(r.stderr, os.TempDir()+"/storhfs-logview") {
			t.Errorf("%s with a corrupt manifest: exit %d, stdout %q, stderr %q", cmd, r.code, r.stdout, r.stderr)
		}
	}
	treetest.AssertSame(t, "stats/verify with a corrupt manifest", before, treetest.Snapshot(t, filepath.Join(root, "events")))
}

// TestDocReadOnlyKeepsDeadWriterFiles: a dead writer (PID 2147483646 is
// never alive) left its marker and a PID-owned temp file, which any normal
// open sweeps (docs/format/docstore.md §5.3-5.4). The read-only commands keep both
// and create nothing; repair sweeps them.
func TestDocReadOnlyKeepsDeadWriterFiles(t *testing.T) {
	root := t.TempDir()
	makeDoc(t, root)
	coll := filepath.Join(root, "pages")
	marker := filepath.Join(coll, ".storh", "writers", "2147483646.0badc0de")
	temp := filepath.Join(coll, "data", idA[24:26], ".2147483646.1f2e3d.1.tmp")
	for _, p := range []string{marker, temp} {
		if err := os.WriteFile(p, []byte("left by a dead writer"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	before := treetest.Snapshot(t, coll)
	out := filepath.Join(t.TempDir(), "pages.jsonl")
	for _, args := range [][]string{
		{"stats", root, "pages"},
		{"verify", root, "pages"},
		{"verify", root, "pages", "doc"},
		{"compact", root, "pages", "doc"},
		{"export", root, "pages", out},
		{"get", root, "pages", idA},
		{"get", "--data", root, "pages", idB},
	} {
		mustRun(t, args...)
		treetest.AssertSame(t, "storhfs "+strings.Join(args[:1], " "), before, treetest.Snapshot(t, coll))
	}
	if b, err := os.ReadFile(out); err != nil || bytes.Count(b, []byte("\n")) != 2 {
		t.Errorf("export wrote %q (%v)", b, err)
	}
	mustRun(t, "repair", root, "pages")
	for _, p := range []string{marker, temp} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("repair left %s (%v)", p, err)
		}
	}
}

func TestQueueCommands(t *testing.T) {
	root := t.TempDir()
	makeQueue(t, root)
	logPath := filepath.Join(root, "jobs", "queue.log")
	size := fileLen(t, logPath)
	stats := fmt.Sprintf("{\n    \"pending\": 1,\n    \"processing\": 2,\n    \"done\": 0,\n    \"bytes\": %d\n}\n", size)
	nested := strings.ReplaceAll(strings.TrimSuffix(stats, "\n"), "\n", "\n    ")
	for _, args := range [][]string{{"stats", root, "jobs", "queue"}, {"compact", root, "jobs", "queue"}} {
		if got := mustRun(t, args...); got != stats {
			t.Errorf("storhfs %v:\n got %q\nwant %q", args[:1], got, stats)
		}
	}
	if got := mustRun(t, "verify", root, "jobs", "queue"); got != "{\n    \"ok\": true,\n    \"errors\": [],\n    \"stats\": "+nested+"\n}\n" {
		t.Errorf("verify queue: %q", got)
	}
	if got := mustRun(t, "repair", root, "jobs", "queue"); got != "{\n    \"ok\": true,\n    \"requeued\": 0\n}\n" {
		t.Errorf("repair queue: %q", got)
	}
	if got := mustRun(t, "repair", "--requeue-after", "0", root, "jobs", "queue"); got != "{\n    \"ok\": true,\n    \"requeued\": 2\n}\n" {
		t.Errorf("repair --requeue-after 0: %q", got)
	}
}

func TestQueueTornTailReadOnlyThenRepair(t *testing.T) {
	root := t.TempDir()
	makeQueue(t, root)
	logPath := filepath.Join(root, "jobs", "queue.log")
	valid := fileLen(t, logPath)
	appendFile(t, logPath, "99\tdeadbeef\t{\"op\":\"enq")
	torn := fileLen(t, logPath)
	before := treetest.Snapshot(t, filepath.Join(root, "jobs"))

	want := fmt.Sprintf("{\n    \"pending\": 1,\n    \"processing\": 2,\n    \"done\": 0,\n    \"bytes\": %d\n}\n", torn)
	if got := mustRun(t, "stats", root, "jobs", "queue"); got != want {
		t.Errorf("stats of a torn queue:\n got %q\nwant %q", got, want)
	}
	nested := strings.ReplaceAll(strings.TrimSuffix(want, "\n"), "\n", "\n    ")
	wantVerify := "{\n    \"ok\": false,\n    \"errors\": [\n        \"line 6: Torn log queue line.\"\n    ],\n    \"stats\": " + nested + "\n}\n"
	if got := mustRun(t, "verify", root, "jobs", "queue"); got != wantVerify {
		t.Errorf("verify of a torn queue:\n got %q\nwant %q", got, wantVerify)
	}
	treetest.AssertSame(t, "stats/verify of a torn queue", before, treetest.Snapshot(t, filepath.Join(root, "jobs")))

	mustRun(t, "repair", root, "jobs", "queue")
	if n := fileLen(t, logPath); n != valid {
		t.Errorf("repair left queue.log at %d bytes, want %d", n, valid)
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestMissingCollectionIsNotCreated(t *testing.T) {
	root := t.TempDir()
	makeQueue(t, root) // "jobs" is no DocStore: the default engine (doc) must not touch it
	before := treetest.Snapshot(t, root)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"stats", root}, "{\n    \"records\": 0,\n    \"bytes\": 0,\n    \"corrupt\": 0,\n    \"indexes\": 0\n}\n"},
		{[]string{"stats", root, "nope", "log"}, "{\n    \"segments\": 1,\n    \"records\": 0,\n    \"deleted\": 0,\n    \"bytes\": 0\n}\n"},
		{[]string{"stats", root, "nope", "queue"}, "{\n    \"pending\": 0,\n    \"processing\": 0,\n    \"done\": 0,\n    \"bytes\": 0\n}\n"},
		{[]string{"verify", root, "nope"}, "{\n    \"ok\": true,\n    \"errors\": [],\n    \"stats\": {\n        \"records\": 0,\n        \"bytes\": 0,\n        \"corrupt\": 0,\n        \"indexes\": 0\n    }\n}\n"},
		{[]string{"compact", root, "nope", "doc"}, "{\n    \"ok\": true,\n    \"records\": 0\n}\n"},
		{[]string{"stats", root, "jobs"}, "{\n    \"records\": 0,\n    \"bytes\": 0,\n    \"corrupt\": 0,\n    \"indexes\": 0\n}\n"},
		{[]string{"verify", root, "jobs", "log"}, "{\n    \"ok\": true,\n    \"errors\": [],\n    \"stats\": {\n        \"segments\": 1,\n        \"records\": 0,\n        \"deleted\": 0,\n        \"bytes\": 0\n    }\n}\n"},
	}
	for _, tc := range cases {
		if got := mustRun(t, tc.args...); got != tc.want {
			t.Errorf("storhfs %v:\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
	treetest.AssertSame(t, "commands on a missing collection", before, treetest.Snapshot(t, root))
}

func TestErrorsAndExitCodes(t *testing.T) {
	root := t.TempDir()
	cases := []struct {
		name       string
		args       []string
		code       int
		stderrHas  string
		stderrFull string
	}{
		{"unknown engine", []string{"stats", root, "c", "bogus"}, 1, "", "Unknown engine: bogus\n"},
		{"unknown engine verify", []string{"verify", root, "c", "nope"}, 1, "", "Unknown engine: nope\n"},
		{"missing root", []string{"stats"}, 2, "missing ROOT", ""},
		{"blank root", []string{"verify", " \t"}, 2, "missing ROOT", ""},
		{"too many args", []string{"stats", root, "c", "doc", "x"}, 2, "too many arguments", ""},
		{"unknown flag", []string{"stats", "--bogus", root}, 2, "bogus", ""},
		{"flag after root", []string{"verify", root, "c", "--strict"}, 2, "flags go before ROOT", ""},
		{"export args", []string{"export", root, "c"}, 2, "need ROOT, COLLECTION and FILE", ""},
		{"export missing collection", []string{"export", root, "nope", filepath.Join(root, "x.jsonl")}, 1, "Collection does not exist: " + root + "/nope", ""},
		{"import missing file", []string{"import", root, "c", filepath.Join(root, "none.jsonl")}, 1, "Could not open JSONL import file: " + root + "/none.jsonl", ""},
		{"get missing", []string{"get", root, "c", idA}, 1, idA, ""},
		{"id args", []string{"id", "x"}, 2, "", "id takes no arguments (usage: storhfs id)\n"},
		{"get args", []string{"get", root, "c"}, 2, "need ROOT, COLLECTION and ID", ""},
		{"bad flag value", []string{"repair", "--requeue-after", "x", root}, 2, "see: storhfs repair --help", ""},
		{"unknown command", []string{"bogus"}, 2, "", "storhfs: unknown command \"bogus\" (see: storhfs --help)\n"},
		{"put args", []string{"put", root, "c"}, 2, "need ROOT, COLLECTION and ID", ""},
		{"put unknown flag", []string{"put", "--bogus", root, "c", idA}, 2, "bogus", ""},
		{"delete args", []string{"delete", root}, 2, "need ROOT, COLLECTION and ID", ""},
		{"demo args", []string{"demo"}, 2, "need ROOT", ""},
		{"mount args", []string{"mount", root}, 2, "need ROOT and MOUNTPOINT", ""},
	}
	for _, tc := range cases {
		r := runCLI(t, "", tc.args...)
		if r.code != tc.code || r.stdout != "" {
			t.Errorf("%s: exit %d (want %d), stdout %q", tc.name, r.code, tc.code, r.stdout)
		}
		if strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") {
			t.Errorf("%s: stderr is not one line: %q", tc.name, r.stderr)
		}
		if tc.stderrFull != "" && r.stderr != tc.stderrFull {
			t.Errorf("%s: stderr %q, want %q", tc.name, r.stderr, tc.stderrFull)
		}
		if !strings.Contains(r.stderr, tc.stderrHas) {
			t.Errorf("%s: stderr %q lacks %q", tc.name, r.stderr, tc.stderrHas)
		}
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {}} {
		r := runCLI(t, "", args...)
		if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "COMMANDS:") || !strings.Contains(r.stdout, "verify") {
			t.Errorf("storhfs %v: exit %d, stderr %q, stdout %q", args, r.code, r.stderr, r.stdout)
		}
	}
	for _, cmd := range []string{"stats", "verify", "repair", "reindex", "compact", "export", "import", "id", "get",
		"query", "append", "enqueue", "claim", "complete", "fail", "requeue"} {
		r := runCLI(t, "", cmd, "--help")
		if r.code != 0 || !strings.Contains(r.stdout, "Example:") || !strings.Contains(r.stdout, "storhfs "+cmd) {
			t.Errorf("%s --help: exit %d, stdout %q", cmd, r.code, r.stdout)
		}
	}
}

func TestIDPrintsUUIDv7(t *testing.T) {
	out := mustRun(t, "id", "-n", "3")
	ids := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(ids) != 3 {
		t.Fatalf("id -n 3 printed %q", out)
	}
	now := time.Now().UnixMilli()
	for i, id := range ids {
		if len(id) != 36 || id[14] != '7' || !strings.ContainsRune("89ab", rune(id[19])) || strings.ToLower(id) != id {
			t.Errorf("not a lowercase UUIDv7: %q", id)
		}
		ms, err := strconvHex(strings.ReplaceAll(id[:13], "-", ""))
		if err != nil || ms < now-60_000 || ms > now+60_000 {
			t.Errorf("id %q timestamp %d not near now %d (%v)", id, ms, now, err)
		}
		if i > 0 && id <= ids[i-1] {
			t.Errorf("ids not increasing: %q then %q", ids[i-1], id)
		}
	}
}

func strconvHex(s string) (int64, error) {
	var v int64
	for _, c := range s {
		d := strings.IndexRune("0123456789abcdef", c)
		if d < 0 {
			return 0, fmt.Errorf("bad hex %q", s)
		}
		v = v*16 + int64(d)
	}
	return v, nil
}

func TestExportImportRoundTrip(t *testing.T) {
	root := t.TempDir()
	makeDoc(t, root)
	first := filepath.Join(root, "out", "pages.jsonl")
	r := runCLI(t, "", "export", root, "pages", first)
	if r.code != 0 || r.stdout != "{\n    \"ok\": true,\n    \"exported\": 2\n}\n" {
		t.Fatalf("export: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	// stderr is a pipe here, not a terminal: no progress bar, nothing extra.
	if r.stderr != "" {
		t.Errorf("export wrote to a non-terminal stderr: %q", r.stderr)
	}
	if got := mustRun(t, "import", root, "copy", first); got != "{\n    \"ok\": true,\n    \"imported\": 2\n}\n" {
		t.Errorf("import: %q", got)
	}
	second := filepath.Join(root, "out", "copy.jsonl")
	mustRun(t, "export", root, "copy", second)
	a, _ := os.ReadFile(first)
	b, _ := os.ReadFile(second)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("round trip differs:\n%s\n%s", a, b)
	}
	if !bytes.Contains(a, []byte(`"city":"Zürich"`)) {
		t.Errorf("export is not storh's JSONL (raw UTF-8): %s", a)
	}
	for _, id := range []string{idA, idB} {
		if x, y := mustRun(t, "get", root, "pages", id), mustRun(t, "get", root, "copy", id); x != y || x == "" {
			t.Errorf("get %s: %q vs %q", id, x, y)
		}
	}
	if got := mustRun(t, "get", "--data", root, "copy", idA); got != "{\"title\":\"t-1\",\"city\":\"Zürich\"}\n" {
		t.Errorf("get --data: %q", got)
	}
}

func TestGetPrintsTheFileVerbatim(t *testing.T) {
	root := t.TempDir()
	content := "// a comment\n{\"id\": \"" + idC + "\", \"data\": {\"x\": 1,},}\n"
	if r := runCLI(t, content, "put", root, "notes", idC); r.code != 0 {
		t.Fatalf("put: %+v", r)
	}
	if got := mustRun(t, "get", root, "notes", idC); got != content {
		t.Errorf("get: %q, want %q", got, content)
	}
}

func TestNoProgressOnNonTerminal(t *testing.T) {
	root := t.TempDir()
	makeDoc(t, root)
	makeLog(t, root)
	for _, args := range [][]string{
		{"verify", root, "pages"},
		{"reindex", root, "pages"},
		{"repair", root, "pages"},
		{"verify", root, "events", "log"},
		{"import", root, "pages", os.DevNull},
	} {
		if r := runCLI(t, "", args...); r.code != 0 || r.stderr != "" {
			t.Errorf("storhfs %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if p := startProgress(nil, "x", nil); p != nil {
		t.Error("startProgress without a stderr returned a bar")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := startProgress(f, "x", nil)
	p.Finish()
	if fi, _ := f.Stat(); p != nil || fi.Size() != 0 {
		t.Errorf("progress on a regular file: bar %v, %d bytes", p != nil, fi.Size())
	}
}
