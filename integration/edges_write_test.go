package integration

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/treetest"
)

// Edges of the write path (issue 12): refused shapes, rmdir of a collection
// holding more than the mount shows, ghost names, honest error reporting,
// and the safe-save names of common tools.

// rmdir decides before it removes anything: a collection that holds a
// foreign file (or records) stays byte-identical and rmdir says ENOTEMPTY.
func TestRmdirCollectionChecksFirst(t *testing.T) {
	requireFuse(t, "rmdir", "mkdir")
	root := demoRoot(t, 3)
	m := startMount(t, root)

	t.Run("foreign file present", func(t *testing.T) {
		coll := m.path("withreadme")
		runOK(t, "", "mkdir", coll)
		writeFile(t, filepath.Join(root, "withreadme", "README"), "what this collection is\n")
		// rmdir takes the collection's write lock, creating its (empty)
		// lock file as storh does; everything else must stay.
		writeFile(t, filepath.Join(root, "withreadme", ".storh", "write.lock"), "")
		before := treetest.Snapshot(t, root)
		if err := syscall.Rmdir(coll); err != syscall.ENOTEMPTY {
			t.Fatalf("rmdir of a collection holding a README = %v, want ENOTEMPTY", err)
		}
		treetest.AssertSame(t, "the refused rmdir", before, treetest.Snapshot(t, root))
		if !m.logShows("holds README") {
			t.Errorf("the mount's log does not name the README:\n%s", m.log)
		}
	})
	t.Run("records present", func(t *testing.T) {
		before := treetest.Snapshot(t, root)
		if err := syscall.Rmdir(m.path("notes")); err != syscall.ENOTEMPTY {
			t.Fatalf("rmdir of a collection with records = %v, want ENOTEMPTY", err)
		}
		treetest.AssertSame(t, "the refused rmdir", before, treetest.Snapshot(t, root))
	})
	t.Run("empty collection", func(t *testing.T) {
		coll := m.path("empty")
		runOK(t, "", "mkdir", coll)
		runOK(t, "", "rmdir", coll)
		if _, err := os.Stat(filepath.Join(root, "empty")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("collection still in ROOT after rmdir: %v", err)
		}
	})
}

// A record must read back as written: exactly "id" and "data", data an
// object or a list. Anything else fails at close with EINVAL, and the
// stored record stays byte-identical; a new id is not created.
func TestWriteRefusesForeignShapes(t *testing.T) {
	requireFuse(t, "cp", "sh", "cat")
	root := demoRoot(t, 5)
	m := startMount(t, root)
	id := storedIDs(t, root, "pages")[0]
	rec := m.path("pages", id+".jsonc")
	work := t.TempDir()
	shapes := map[string]string{
		"no data":    `{"id":"%s","slug":"x"}`,
		"data 5":     `{"id":"%s","data":5}`,
		"data s":     `{"id":"%s","data":"s"}`,
		"data null":  `{"id":"%s","data":null}`,
		"extra meta": `{"id":"%s","data":{"slug":"x"},"meta":{"a":1}}`,
		"jsonc":      "// note\n{\"id\":\"%s\", \"data\":5,}",
	}
	before := storedContent(t, root, "pages", id)
	for name, shape := range shapes {
		src := filepath.Join(work, "bad.jsonc")
		writeFile(t, src, strings.ReplaceAll(shape, "%s", id))
		out := runFails(t, "", "cp", src, rec)
		if !strings.Contains(out, "Invalid argument") {
			t.Errorf("%s: cp said %q, want Invalid argument", name, out)
		}
		out = runFails(t, "", "sh", "-c", `cat "$1" > "$2"`, "sh", src, rec)
		if !strings.Contains(out, "Invalid argument") {
			t.Errorf("%s: cat > rec said %q, want Invalid argument", name, out)
		}
		// A shell builtin cannot see the refusal (README); nothing changes.
		run("", "sh", "-c", `echo "$1" > "$2"`, "sh", strings.ReplaceAll(shape, "%s", id), rec)
		if got := storedContent(t, root, "pages", id); got != before {
			t.Fatalf("%s: stored record changed to %q", name, got)
		}
		fresh := newID(t)
		writeFile(t, src, strings.ReplaceAll(shape, "%s", fresh))
		runFails(t, "", "cp", src, m.path("pages", fresh+".jsonc"))
		if got := storedContent(t, root, "pages", fresh); got != "<missing>" {
			t.Errorf("%s: new record stored: %q", name, got)
		}
	}
	// What PHP writes for lists and empty data is accepted verbatim.
	for _, data := range []string{`[]`, `[1,2]`, `{}`, `{"a":[1,2,],}`} {
		content := record(id, data)
		writeFile(t, filepath.Join(work, "ok.jsonc"), content)
		runOK(t, "", "cp", filepath.Join(work, "ok.jsonc"), rec)
		if got := storedContent(t, root, "pages", id); got != content {
			t.Errorf("data %s: stored %q", data, got)
		}
	}
	verify(t, root, "pages")
}

// A failed create leaves no name behind once the failing close returned:
// a stat right after `touch` exits must not find it.
func TestNoGhostNameAfterFailedCreate(t *testing.T) {
	requireFuse(t, "touch")
	root := demoRoot(t, 3)
	m := startMount(t, root)
	ghosts := 0
	for i := 0; i < 30; i++ {
		path := m.path("pages", newID(t)+".jsonc")
		runFails(t, "", "touch", path)
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			ghosts++
			t.Logf("try %d: stat right after the failed touch = %v, want ENOENT", i, err)
		}
	}
	if ghosts > 0 {
		t.Errorf("%d of 30 failed creates left a name that stat still found", ghosts)
	}
}

// awaitRefusalLines is refusalLines once at least one such line arrived
// (waiting up to 5 s): the mount logs a refusal before it answers, but the
// test reads its stderr through a pipe, a little later.
func awaitRefusalLines(m *mount, name string) []string {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if lines := refusalLines(m, name); len(lines) > 0 || time.Now().After(deadline) {
			return lines
		}
	}
}

// refusalLines returns the mount's log lines that report a refused or
// failed commit of the record file name.
func refusalLines(m *mount, name string) []string {
	var lines []string
	for _, line := range strings.Split(m.log.String(), "\n") {
		if strings.Contains(line, name) && (strings.Contains(line, "rejected") || strings.Contains(line, "nothing written") || strings.Contains(line, "failed")) {
			lines = append(lines, line)
		}
	}
	return lines
}

// A refused write reaches the user: one log line per refusal, and the
// last refusals in MOUNTPOINT/.storhfs/errors (not listed at the root).
func TestRefusalsReachTheUser(t *testing.T) {
	requireFuse(t, "cp", "cat", "tail", "wc", "ls")
	root := demoRoot(t, 5)
	m := startMount(t, root)
	ids := storedIDs(t, root, "pages")
	errorsFile := m.path(".storhfs", "errors")
	if got := runOK(t, "", "cat", errorsFile); got != "" {
		t.Errorf("errors of a fresh mount = %q, want empty", got)
	}
	if strings.Contains(runOK(t, "", "ls", "-a", m.dir), ".storhfs") {
		t.Errorf(".storhfs is listed at the root")
	}
	for i, id := range ids[:2] {
		bad := filepath.Join(t.TempDir(), "bad.jsonc")
		writeFile(t, bad, `{"id":"`+id+`","slug":"no data member"}`)
		runFails(t, "", "cp", bad, m.path("pages", id+".jsonc"))
		name := "pages/" + id + ".jsonc"
		reason := `unexpected top-level member "slug"`
		if lines := awaitRefusalLines(m, id); len(lines) != 1 || !strings.Contains(lines[0], name) || !strings.Contains(lines[0], reason) {
			t.Errorf("log lines of the refused cp = %q, want one naming %s and the reason", lines, name)
		}
		got := runOK(t, "", "cat", errorsFile)
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if len(lines) <= i {
			t.Fatalf(".storhfs/errors = %q after %d refusals", got, i+1)
		}
		last := lines[i]
		if strings.Count(got, "\n") != i+1 || !strings.Contains(last, name+" rejected: ") || !strings.Contains(last, reason) {
			t.Errorf(".storhfs/errors = %q, want %d lines, the last with the path and the reason", got, i+1)
		}
		if tail := runOK(t, "", "tail", "-n", "1", errorsFile); tail != last+"\n" {
			t.Errorf("tail -n 1 = %q, want %q", tail, last+"\n")
		}
		if size := strings.TrimSpace(runOK(t, "", "wc", "-c", errorsFile)); !strings.HasPrefix(size, fmt.Sprint(len(got))+" ") {
			t.Errorf("wc -c = %q, cat read %d bytes", size, len(got))
		}
	}
	if err := os.WriteFile(errorsFile, []byte("x"), 0o644); err == nil {
		t.Errorf(".storhfs/errors is writable")
	}
}

// vim :w of a bad edit fails (fsync, then close, both refuse the same
// content) and logs the refusal once; the record is intact.
func TestVimRefusalLoggedOnce(t *testing.T) {
	requireFuse(t, "vim")
	root := demoRoot(t, 5)
	m := startMount(t, root)
	id := storedIDs(t, root, "pages")[0]
	before := storedContent(t, root, "pages", id)
	runFails(t, m.path("pages"), "vim", "-u", "NONE", "-i", "NONE", "-es", "-c", `%s/"data":/"data"/`, "-c", "wq", m.path("pages", id+".jsonc"))
	if got := storedContent(t, root, "pages", id); got != before {
		t.Fatalf("record changed by a refused vim write: %q", got)
	}
	if lines := awaitRefusalLines(m, id); len(lines) != 1 {
		t.Errorf("vim :w logged %d refusal lines, want 1:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}

// A successful write logs no refusal, although a shell redirect closes a
// duplicate of its descriptor (a flush of the still empty file) first.
func TestSuccessfulRedirectLogsNoRefusal(t *testing.T) {
	requireFuse(t, "sh", "cat")
	root := demoRoot(t, 5)
	m := startMount(t, root)
	fresh := newID(t)
	existing := storedIDs(t, root, "pages")[0]
	for _, id := range []string{fresh, existing} {
		content := record(id, `{"slug":"redirected-`+id[len(id)-4:]+`"}`)
		src := filepath.Join(t.TempDir(), "src.jsonc")
		writeFile(t, src, content)
		sh(t, "", fmt.Sprintf(`echo '%s' > %s`, strings.TrimSpace(content), m.path("pages", id+".jsonc")))
		sh(t, "", fmt.Sprintf(`cat %s > %s`, src, m.path("pages", id+".jsonc")))
		if got := storedContent(t, root, "pages", id); got != content {
			t.Errorf("stored %q, want %q", got, content)
		}
	}
	// A refusal would be reported at the latest when the file is released,
	// shortly after close(2) returned; a refused touch reported after
	// them proves those releases were handled.
	probe := newID(t)
	runFails(t, "", "touch", m.path("pages", probe+".jsonc"))
	eventually(t, "the refused touch is reported", func() bool { return len(refusalLines(m, probe)) > 0 })
	for _, id := range []string{fresh, existing} {
		if lines := refusalLines(m, id); len(lines) != 0 {
			t.Errorf("successful redirects into %s logged refusals:\n%s", id, strings.Join(lines, "\n"))
		}
	}
}

// The safe-save names of common tools are scratch names, and each tool's
// save sequence replaces the record; a record renamed onto a scratch name
// (emacs' backup by rename) is copied there and stays.
func TestSafeSaveNamesOfTools(t *testing.T) {
	requireFuse(t, "python3", "gio", "mv", "cp", "cat")
	root := demoRoot(t, 8)
	m := startMount(t, root)
	pages := m.path("pages")
	ids := storedIDs(t, root, "pages")
	version := func(id, v string) string { return record(id, `{"slug":"`+v+`"}`) }
	expectStored := func(t *testing.T, id, want string) {
		t.Helper()
		if got := storedContent(t, root, "pages", id); got != want {
			t.Fatalf("stored %q, want %q", got, want)
		}
	}

	t.Run("python tempfile.mkstemp then os.replace", func(t *testing.T) {
		id, content := ids[0], version(ids[0], "python")
		script := `import os, sys, tempfile
d, name, content = sys.argv[1:]
fd, tmp = tempfile.mkstemp(dir=d)
os.write(fd, content.encode())
os.fsync(fd)
os.close(fd)
os.replace(tmp, os.path.join(d, name))
with tempfile.NamedTemporaryFile("w", dir=d) as f:
    f.write("scratch")
`
		runOK(t, "", "python3", "-c", script, pages, id+".jsonc", content)
		expectStored(t, id, content)
	})

	t.Run("gio save", func(t *testing.T) {
		id, content := ids[1], version(ids[1], "gio")
		cmd := exec.Command("gio", "save", filepath.Join(pages, id+".jsonc"))
		cmd.Stdin = strings.NewReader(content)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gio save: %v\n%s", err, out)
		}
		expectStored(t, id, content)
		// Without its temp name GIO falls back to writing in place.
		if strings.Contains(m.log.String(), ".goutputstream-") {
			t.Errorf("GIO's temp file was refused:\n%s", m.log)
		}
	})

	t.Run("JetBrains safe write", func(t *testing.T) {
		id, content := ids[2], version(ids[2], "jetbrains")
		rec := filepath.Join(pages, id+".jsonc")
		writeFile(t, rec+"___jb_tmp___", content)
		if err := os.Rename(rec, rec+"___jb_old___"); err != nil {
			t.Fatalf("rename the record to ___jb_old___: %v", err)
		}
		if err := os.Rename(rec+"___jb_tmp___", rec); err != nil {
			t.Fatalf("rename ___jb_tmp___ onto the record: %v", err)
		}
		if err := os.Remove(rec + "___jb_old___"); err != nil {
			t.Fatal(err)
		}
		expectStored(t, id, content)
	})

	t.Run("emacs backup by rename", func(t *testing.T) {
		id := ids[3]
		rec := filepath.Join(pages, id+".jsonc")
		old := storedContent(t, root, "pages", id)
		runOK(t, "", "mv", rec, rec+"~")
		// The record is never lost in between: the rename copied it.
		if got := string(readFile(t, rec)); got != old {
			t.Fatalf("record after mv rec rec~ = %q, want it unchanged", got)
		}
		if got := string(readFile(t, rec+"~")); got != old {
			t.Fatalf("backup = %q, want the record's content", got)
		}
		// Emacs then writes the new content under the old name.
		content := version(id, "emacs")
		f := openFile(t, rec, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
		writeAt(t, f, content, 0)
		if err := f.Sync(); err != nil {
			t.Fatalf("fsync: %v", err)
		}
		if err := f.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		expectStored(t, id, content)
		// The kernel moved its entry of rec to rec~ on the rename; the
		// mount invalidates it right after (it cannot from inside the
		// rename), so rec~ shows the copy from then on.
		eventually(t, "the backup keeps the old content", func() bool {
			return string(readFile(t, rec+"~")) == old
		})
		// Restoring the backup is a rename onto the record.
		runOK(t, "", "mv", rec+"~", rec)
		expectStored(t, id, old)
	})

	t.Run("LibreOffice lock file", func(t *testing.T) {
		lock := filepath.Join(pages, ".~lock."+ids[4]+".jsonc#")
		f := openFile(t, lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
		writeAt(t, f, "user,host,/home/user,01.12.2026 23:00,\n", 0)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(lock); err != nil {
			t.Fatal(err)
		}
	})

	t.Run(".bak .orig .new .part", func(t *testing.T) {
		id := ids[5]
		rec := filepath.Join(pages, id+".jsonc")
		old := storedContent(t, root, "pages", id)
		runOK(t, "", "cp", rec, rec+".bak")
		runOK(t, "", "cp", rec, rec+".orig")
		for _, suffix := range []string{".new", ".part"} {
			content := version(id, suffix[1:])
			writeFile(t, rec+suffix, content)
			runOK(t, "", "mv", rec+suffix, rec)
			expectStored(t, id, content)
		}
		if got := string(readFile(t, rec+".bak")); got != old {
			t.Errorf(".bak = %q", got)
		}
		runOK(t, "", "rm", rec+".bak", rec+".orig")
	})

	assertNoScratchLeft(t, pages)
	if strings.Contains(m.log.String(), "refused") {
		t.Errorf("the mount refused something:\n%s", m.log)
	}
	verify(t, root, "pages")
}
