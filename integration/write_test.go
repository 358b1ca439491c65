package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func record(id, data string) string {
	return fmt.Sprintf(`{"id":"%s","data":%s}`+"\n", id, data)
}

func TestWriteThroughMount(t *testing.T) {
	requireFuse(t, "cp", "sh", "sed", "vim", "jq", "mv", "rsync", "rm", "cmp", "ls")
	root := demoRoot(t, 60)
	m := startMount(t, root)
	pages := m.path("pages")
	ids := storedIDs(t, root, "pages")
	slices.Sort(ids)
	work := t.TempDir()

	t.Run("create with cp", func(t *testing.T) {
		id := newID(t)
		src := filepath.Join(work, id+".jsonc")
		writeFile(t, src, "// made by cp\n"+record(id, `{"slug":"cp-made","kind":"post","score":5}`))
		runOK(t, "", "cp", src, pages+"/")
		runOK(t, "", "cmp", src, storedPath(root, "pages", id))
		runOK(t, "", "cmp", src, filepath.Join(pages, id+".jsonc"))
		verify(t, root, "pages")
	})

	t.Run("create and replace with shell redirection", func(t *testing.T) {
		id := newID(t)
		rec := filepath.Join(pages, id+".jsonc")
		sh(t, "", fmt.Sprintf(`printf '%%s' '%s' > %s`, record(id, `{"slug":"redirected"}`), rec))
		if got := string(readFile(t, storedPath(root, "pages", id))); !strings.Contains(got, "redirected") {
			t.Fatalf("stored after > = %q", got)
		}
		sh(t, "", fmt.Sprintf(`printf '%%s' '%s' > %s`, record(id, `{"slug":"redirected-again","kind":"x"}`), rec))
		runOK(t, "", "cmp", rec, storedPath(root, "pages", id))
		if got := string(readFile(t, rec)); !strings.Contains(got, "redirected-again") {
			t.Fatalf("content after second > = %q", got)
		}
		verify(t, root, "pages")
	})

	t.Run("edit with sed -i", func(t *testing.T) {
		rec := filepath.Join(pages, ids[1]+".jsonc")
		runOK(t, "", "sed", "-i", `s/"slug":"page-0001"/"slug":"sed-edited"/`, rec)
		got := string(readFile(t, storedPath(root, "pages", ids[1])))
		if !strings.Contains(got, "sed-edited") {
			t.Fatalf("stored after sed -i = %q", got)
		}
		runOK(t, "", "cmp", rec, storedPath(root, "pages", ids[1]))
		assertNoScratchLeft(t, pages)
		verify(t, root, "pages")
	})

	t.Run("edit with vim -es", func(t *testing.T) {
		rec := filepath.Join(pages, ids[2]+".jsonc")
		runOK(t, pages, "vim", "-u", "NONE", "-i", "NONE", "-es", "-c", `%s/"kind":"[a-z]*"/"kind":"vim-edited"/`, "-c", "wq", rec)
		got := string(readFile(t, storedPath(root, "pages", ids[2])))
		if !strings.Contains(got, `"kind":"vim-edited"`) {
			t.Fatalf("stored after vim = %q", got)
		}
		assertNoScratchLeft(t, pages)
		verify(t, root, "pages")
	})

	t.Run("edit with jq > tmp && mv tmp rec", func(t *testing.T) {
		rec := filepath.Join(pages, ids[3]+".jsonc")
		sh(t, pages, fmt.Sprintf(`jq '.data.score = 4242' %s > tmp && mv tmp %s`, rec, rec))
		got := string(readFile(t, storedPath(root, "pages", ids[3])))
		if !strings.Contains(got, `"score": 4242`) {
			t.Fatalf("stored after jq+mv = %q", got)
		}
		assertNoScratchLeft(t, pages)
		verify(t, root, "pages")
	})

	t.Run("rsync -a out of and into a collection", func(t *testing.T) {
		out := filepath.Join(work, "rsync-out") + "/"
		runOK(t, "", "rsync", "-a", pages+"/", out)
		for _, id := range ids[:5] {
			runOK(t, "", "cmp", out+id+".jsonc", storedPath(root, "pages", id))
		}
		// Change two records and add one, then sync back.
		edit := out + ids[4] + ".jsonc"
		runOK(t, "", "sed", "-i", `s/"slug":"page-0004"/"slug":"rsynced"/`, edit)
		newID := newID(t)
		writeFile(t, out+newID+".jsonc", record(newID, `{"slug":"rsync-new"}`))
		runOK(t, "", "rsync", "-a", out, pages+"/")
		runOK(t, "", "cmp", edit, storedPath(root, "pages", ids[4]))
		runOK(t, "", "cmp", out+newID+".jsonc", storedPath(root, "pages", newID))
		src, _ := os.Stat(edit)
		dst, _ := os.Stat(storedPath(root, "pages", ids[4]))
		if !src.ModTime().Equal(dst.ModTime()) {
			t.Errorf("rsync -a: mtime %v stored, source %v", dst.ModTime(), src.ModTime())
		}
		assertNoScratchLeft(t, pages)
		verify(t, root, "pages")
	})

	t.Run("rm deletes record and index entries", func(t *testing.T) {
		rec := filepath.Join(pages, ids[5]+".jsonc")
		runOK(t, "", "rm", rec)
		if _, err := os.Stat(storedPath(root, "pages", ids[5])); !os.IsNotExist(err) {
			t.Errorf("stored record still there after rm: %v", err)
		}
		if strings.Contains(runOK(t, "", "ls", pages), ids[5]) {
			t.Errorf("ls still shows the removed record")
		}
		verify(t, root, "pages")
	})

	t.Run("mkdir and rmdir collections", func(t *testing.T) {
		dir := m.path("fresh")
		runOK(t, "", "mkdir", dir)
		id := newID(t)
		writeFile(t, filepath.Join(dir, id+".jsonc"), record(id, `{"a":1}`))
		runOK(t, "", "cmp", filepath.Join(dir, id+".jsonc"), storedPath(root, "fresh", id))
		runFails(t, "", "rmdir", dir)
		runOK(t, "", "rm", filepath.Join(dir, id+".jsonc"))
		runOK(t, "", "rmdir", dir)
		if _, err := os.Stat(filepath.Join(root, "fresh")); !os.IsNotExist(err) {
			t.Errorf("collection dir still in ROOT after rmdir: %v", err)
		}
	})

	t.Run("non-record names are refused, records are not renamed", func(t *testing.T) {
		out := runFails(t, "", "touch", filepath.Join(pages, "notes.txt"))
		if !strings.Contains(out, "Operation not permitted") {
			t.Errorf("touch notes.txt: %q, want EPERM", out)
		}
		out = runFails(t, "", "mv", filepath.Join(pages, ids[6]+".jsonc"), filepath.Join(pages, newID(t)+".jsonc"))
		if !strings.Contains(out, "Operation not permitted") {
			t.Errorf("mv record onto another id: %q, want EPERM", out)
		}
		if _, err := os.Stat(storedPath(root, "pages", ids[6])); err != nil {
			t.Errorf("refused rename lost the record: %v", err)
		}
	})

	t.Run("rename onto an existing record with RENAME_NOREPLACE keeps it", func(t *testing.T) {
		rec := filepath.Join(pages, ids[8]+".jsonc")
		before := readFile(t, storedPath(root, "pages", ids[8]))
		tmp := filepath.Join(pages, "next.tmp")
		writeFile(t, tmp, record(ids[8], `{"slug":"not-applied"}`))
		// coreutils mv --no-clobber asks for renameat2(RENAME_NOREPLACE).
		run("", "mv", "--no-clobber", tmp, rec)
		if got := readFile(t, storedPath(root, "pages", ids[8])); string(got) != string(before) {
			t.Errorf("mv --no-clobber replaced the record: %s", got)
		}
		runOK(t, "", "rm", "-f", tmp)
		assertNoScratchLeft(t, pages)
	})

	t.Run("chmod and chown are accepted, touch sets times", func(t *testing.T) {
		rec := filepath.Join(pages, ids[7]+".jsonc")
		runOK(t, "", "chmod", "600", rec)
		runOK(t, "", "chown", "0:0", rec)
		runOK(t, "", "touch", "-d", "2001-02-03 04:05:06", rec)
		fi, err := os.Stat(storedPath(root, "pages", ids[7]))
		if err != nil || fi.ModTime().Year() != 2001 {
			t.Errorf("touch -d: stored mtime %v (%v)", fi.ModTime(), err)
		}
	})
}

func TestRejectedCommitsKeepTheRecord(t *testing.T) {
	requireFuse(t, "cp", "sh", "cmp", "sed")
	root := demoRoot(t, 30)
	m := startMount(t, root)
	ids := storedIDs(t, root, "pages")
	slices.Sort(ids)
	target := ids[0]
	stored := storedPath(root, "pages", target)
	rec := m.path("pages", target+".jsonc")
	original := readFile(t, stored)
	work := t.TempDir()

	cases := []struct {
		name, content string
	}{
		{"invalid JSONC", `{"id":"` + target + `","data":{broken`},
		{"wrong id", record(ids[1], `{"slug":"wrong-id"}`)},
		{"unique-index violation", record(target, `{"slug":"page-0001"}`)},
		{"empty", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := filepath.Join(work, "bad")
			writeFile(t, src, c.content)
			runFails(t, "", "cp", src, rec)
			if c.content == "" && noOpen {
				// Without OPEN, cat's close of the descriptor its shell
				// truncated is not the writer's (cat wrote nothing): the
				// refusal reaches the shell's own close, which sh ignores,
				// and .storhfs/errors (fusefs/nodewrites.go).
				run("", "sh", "-c", "cat "+src+" > "+rec)
			} else {
				runFails(t, "", "sh", "-c", "cat "+src+" > "+rec)
			}
			if got := readFile(t, stored); string(got) != string(original) {
				t.Fatalf("stored record changed by a rejected write:\n%s", got)
			}
			runOK(t, "", "cmp", rec, stored)
			verify(t, root, "pages")
		})
	}
	t.Run("sed -i producing invalid content", func(t *testing.T) {
		runFails(t, "", "sed", "-i", "s/{/[/", rec)
		if got := readFile(t, stored); string(got) != string(original) {
			t.Fatalf("stored record changed by a rejected sed -i")
		}
		verify(t, root, "pages")
	})
	if !m.logShows("rejected") {
		t.Errorf("mount did not log the rejected commits; stderr: %s", m.log)
	}
}

func TestReadOnlyMount(t *testing.T) {
	requireFuse(t, "cp", "touch", "rm", "mkdir", "sed", "cat")
	root := demoRoot(t, 20)
	m := startMount(t, root, "--read-only")
	ids := storedIDs(t, root, "pages")
	rec := m.path("pages", ids[0]+".jsonc")
	before := readFile(t, storedPath(root, "pages", ids[0]))
	runOK(t, "", "cat", rec)
	for _, cmd := range [][]string{
		{"touch", m.path("pages", newID(t)+".jsonc")},
		{"cp", rec, m.path("pages", newID(t)+".jsonc")},
		{"sed", "-i", "s/a/b/", rec},
		{"rm", rec},
		{"mkdir", m.path("newcoll")},
		{"touch", rec},
	} {
		out := runFails(t, "", cmd[0], cmd[1:]...)
		if !strings.Contains(out, "Read-only file system") {
			t.Errorf("%v: %q, want EROFS", cmd, out)
		}
	}
	if got := readFile(t, storedPath(root, "pages", ids[0])); string(got) != string(before) {
		t.Errorf("read-only mount changed a record")
	}
}

// assertNoScratchLeft checks that tool temporaries did not stay behind.
func assertNoScratchLeft(t *testing.T, dir string) {
	t.Helper()
	for _, name := range strings.Fields(runOK(t, "", "ls", "-A", dir)) {
		if !strings.HasSuffix(name, ".jsonc") {
			t.Errorf("scratch file %q left in %s", name, dir)
		}
	}
}
