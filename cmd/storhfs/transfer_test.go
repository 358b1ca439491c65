package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A backup script must never see success for a backup of nothing: export
// of a log, a queue or a mistyped collection fails and writes no file.
func TestExportRefusesWhatIsNoDocStore(t *testing.T) {
	root := t.TempDir()
	makeDoc(t, root)
	makeLog(t, root)
	makeQueue(t, root)
	cases := map[string]string{
		"events": "is a SegmentedLog collection, not a DocStore",
		"jobs":   "is a Queue, not a DocStore",
		"pagse":  "Collection does not exist: " + root + "/pagse",
	}
	for coll, want := range cases {
		out := filepath.Join(root, coll+".jsonl")
		r := runCLI(t, "", "export", root, coll, out)
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, want) {
			t.Errorf("export %s: exit %d stdout %q stderr %q, want exit 1 and %q", coll, r.code, r.stdout, r.stderr, want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("export %s left a file behind: %v", coll, err)
		}
	}
}

// Records never land beside a log's segments or a queue's log.
func TestRecordCommandsRefuseLogsAndQueues(t *testing.T) {
	root := t.TempDir()
	makeLog(t, root)
	makeQueue(t, root)
	line := `{"id":"` + idA + `","data":{}}` + "\n"
	in := filepath.Join(root, "in.jsonl")
	if err := os.WriteFile(in, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, coll := range []string{"events", "jobs"} {
		for _, args := range [][]string{
			{"import", root, coll, in},
			{"put", root, coll, idA},
			{"delete", root, coll, idA},
			{"get", root, coll, idA},
		} {
			if args[0] == "get" && coll == "events" {
				continue // get reads a log's records (logcmd_test.go)
			}
			r := runCLI(t, line, args...)
			if r.code != 1 || !strings.Contains(r.stderr, "not a DocStore") {
				t.Errorf("%v: exit %d stderr %q, want exit 1 naming the collection kind", args, r.code, r.stderr)
			}
		}
		if _, err := os.Stat(filepath.Join(root, coll, "data")); !os.IsNotExist(err) {
			t.Errorf("%s got a data/ folder: %v", coll, err)
		}
	}
}

// "-" is standard output for export (the summary then goes to stderr) and
// standard input for import; no file named "-" appears.
func TestTransferDashIsStdio(t *testing.T) {
	root := t.TempDir()
	makeDoc(t, root)
	file := filepath.Join(root, "pages.jsonl")
	mustRun(t, "export", root, "pages", file)
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "export", root, "pages", "-")
	if r.code != 0 || r.stdout != string(want) {
		t.Fatalf("export -: exit %d stdout %q, want the JSONL %q", r.code, r.stdout, want)
	}
	if r.stderr != "{\n    \"ok\": true,\n    \"exported\": 2\n}\n" {
		t.Errorf("export -: summary on stderr is %q", r.stderr)
	}
	r = runCLI(t, string(want), "import", root, "copy", "-")
	if r.code != 0 || r.stdout != "{\n    \"ok\": true,\n    \"imported\": 2\n}\n" {
		t.Fatalf("import -: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := runCLI(t, "", "export", root, "copy", "-").stdout; got != string(want) {
		t.Errorf("round trip through stdin differs:\n%s\n%s", got, want)
	}
	for _, dir := range []string{".", root} {
		if _, err := os.Stat(filepath.Join(dir, "-")); !os.IsNotExist(err) {
			t.Errorf("a file named - appeared in %s", dir)
		}
	}
}

// A bad import line is named by its number; the lines before it stay.
func TestImportErrorNamesTheLine(t *testing.T) {
	root := t.TempDir()
	in := `{"id":"` + idA + `","data":{}}` + "\n\n" + `{"id":"` + idB + `","data":{}` + "\n"
	r := runCLI(t, in, "import", root, "pages", "-")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "line 3: ") || !strings.Contains(r.stderr, "Syntax error") {
		t.Fatalf("import: exit %d stderr %q, want exit 1 and \"line 3: Syntax error ...\"", r.code, r.stderr)
	}
	if got := mustRun(t, "get", root, "pages", idA); !strings.Contains(got, idA) {
		t.Errorf("line 1 was not kept: %q", got)
	}
}
