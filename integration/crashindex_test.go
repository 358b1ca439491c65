package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/lockedbuf"

	"github.com/storhfs/storhfs/internal/corpus"
)

// php runs a PHP script to completion (bounded) and returns its output.
func php(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("php", args...)
	cmd.Env = env
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(120 * time.Second):
			cmd.Process.Kill()
		}
	}()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Writers killed with SIGKILL mid-put leave index drift and index temp
// files (issue 17, defect 6): PHP writers, and storhfs writers (an import,
// which commits through the same engine code as the mount), in turn.
// Mounting the root finds the last one's dead marker, sweeps the temps and
// rebuilds the drifted indexes, so PHP's own verify is healthy and its
// indexed queries find every record again, with nobody running reindex.
func TestKilledWritersLeaveNoIndexDrift(t *testing.T) {
	requireFuse(t)
	oracle := corpus.RequireOracle(t)
	env, storhBin := oracle.Env(), oracle.Bin
	root := filepath.Join(t.TempDir(), "root")
	script, err := filepath.Abs("testdata/crashindex.php")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := php(t, env, script, "setup", root); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}

	rowsDir := t.TempDir()
	writers := []func(run int) *exec.Cmd{
		func(run int) *exec.Cmd {
			cmd := exec.Command("php", script, "write", root, fmt.Sprintf("r%d", run))
			cmd.Env = env
			return cmd
		},
		func(run int) *exec.Cmd {
			rows := filepath.Join(rowsDir, fmt.Sprintf("r%d.jsonl", run))
			writeImportRows(t, rows, fmt.Sprintf("imp%d", run), 20000)
			return exec.Command(storhfsBin, "import", root, "pages", rows)
		},
	}
	const maxKills = 8
	kills, drifted, driftedNow := 0, false, false
	for kills < maxKills && !(kills >= 4 && drifted) {
		killWriterMidRun(t, writers[kills%2](kills), root, kills)
		kills++
		// storhfs verify opens read-only: it leaves the dead marker for the mount.
		out, err := run("", storhfsBin, "verify", "--strict", root, "pages")
		driftedNow = err != nil // an import's open repairs what earlier kills left
		drifted = drifted || driftedNow
		if err != nil {
			t.Logf("after kill %d: %.300s", kills, out)
		}
	}
	temps := indexTemps(t, root)
	t.Logf("%d kills, drift seen: %v, drift before the mount: %v, index temps left: %d", kills, drifted, driftedNow, len(temps))

	m := startMount(t, root)
	runOK(t, "", "ls", m.path("pages")) // opens the collection: the check runs before ls gets its answer
	if err := m.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	t.Logf("mount log:\n%s", m.log)

	if left := indexTemps(t, root); len(left) > 0 {
		t.Errorf("index temp files left after the mount's open: %v", left)
	}
	out, err := php(t, env, storhBin, "verify", root, "pages", "doc")
	if err != nil || !strings.Contains(out, `"ok": true`) && !strings.Contains(out, `"ok":true`) {
		t.Fatalf("PHP verify after the mount: %v\n%s", err, out)
	}
	out, err = php(t, env, script, "check", root)
	if err != nil {
		t.Fatalf("PHP's indexed queries after the mount: %v\n%s", err, out)
	}
	t.Logf("PHP check: %s", strings.TrimSpace(out))
	if !strings.Contains(m.log.String(), "checked the indexes after dead writer") {
		t.Errorf("the mount's log does not show the check after the dead writer")
	}
	if driftedNow && !strings.Contains(m.log.String(), "rebuilt") && !strings.Contains(m.log.String(), "reindexed") {
		t.Errorf("verify saw drift before the mount, but the mount's log shows no rebuild")
	}
}

// writeImportRows writes n rows for `storhfs import`: each row is a
// record's data (slug unique, kind, tag, n), its id generated.
func writeImportRows(t *testing.T, path, slugPrefix string, n int) {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"slug":"%s-%d","kind":"%s","tag":"t%d","n":%d}`+"\n", slugPrefix, i, []string{"a", "b", "c"}[i%3], i%2, 100000+i)
	}
	writeFile(t, path, b.String())
}

// killWriterMidRun starts a writer, lets it store a few records and kills
// it with SIGKILL, wherever it is.
func killWriterMidRun(t *testing.T, cmd *exec.Cmd, root string, run int) {
	t.Helper()
	before := len(storedIDs(t, root, "pages"))
	var stderr lockedbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	want := before + 10 + 7*run // a different point of the put cycle each run
	deadline := time.Now().Add(30 * time.Second)
	for len(storedIDs(t, root, "pages")) < want {
		select {
		case err := <-exited:
			t.Fatalf("writer %s exited on its own: %v\n%s", cmd.Args, err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("writer %s stored fewer than %d records in 30 s", cmd.Args, want-before)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// indexTemps lists the temp files below ROOT/pages/.storh/indexes.
func indexTemps(t *testing.T, root string) []string {
	t.Helper()
	var temps []string
	filepath.WalkDir(filepath.Join(root, "pages", ".storh", "indexes"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".") && strings.HasSuffix(d.Name(), ".tmp") {
			temps = append(temps, p)
		}
		return nil
	})
	return temps
}
