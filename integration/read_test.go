package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestReadThroughMount(t *testing.T) {
	requireFuse(t, "ls", "cat", "grep", "jq", "find", "stat", "wc", "cmp")
	root := demoRoot(t, 120)
	m := startMount(t, root)

	t.Run("collections and namespaces", func(t *testing.T) {
		if got := runOK(t, "", "ls", "-a", m.dir); fmt.Sprint(strings.Fields(got)) != "[. .. app events jobs notes pages]" {
			t.Errorf("ls -a root = %q, want . .. app events jobs notes pages (storh metadata hidden)", got)
		}
		if got := strings.TrimSpace(runOK(t, "", "ls", m.path("app"))); got != "users" {
			t.Errorf("ls app = %q, want users", got)
		}
	})

	ids := storedIDs(t, root, "pages")
	slices.Sort(ids)
	want := make([]string, len(ids))
	for i, id := range ids {
		want[i] = id + ".jsonc"
	}

	// ls -f lists unsorted and all: . and .. first, then the records.
	wantF := append([]string{".", ".."}, want...)

	t.Run("ls lists every record once in id order", func(t *testing.T) {
		got := strings.Fields(runOK(t, "", "ls", "-f", m.path("pages")))
		if !slices.Equal(got, wantF) {
			t.Fatalf("ls -f pages: %d names, want %d (. .. and the records in id order)\ngot  %v\nwant %v", len(got), len(wantF), got[:min(5, len(got))], wantF[:5])
		}
	})

	t.Run("concurrent ls agree", func(t *testing.T) {
		var wg sync.WaitGroup
		outs := make([]string, 6)
		errs := make([]error, 6)
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i], errs[i] = run("", "ls", "-f", m.path("pages"))
			}()
		}
		wg.Wait()
		for i := range outs {
			if errs[i] != nil || !slices.Equal(strings.Fields(outs[i]), wantF) {
				t.Fatalf("concurrent ls #%d differs (err %v)", i, errs[i])
			}
		}
	})

	t.Run("ls -l, stat and wc -c see real size and mtime", func(t *testing.T) {
		for _, id := range ids[:5] {
			real, err := os.Stat(storedPath(root, "pages", id))
			if err != nil {
				t.Fatal(err)
			}
			line := runOK(t, "", "stat", "-c", "%s %Y", m.path("pages", id+".jsonc"))
			if want := fmt.Sprintf("%d %d\n", real.Size(), real.ModTime().Unix()); line != want {
				t.Errorf("stat %s = %q, want %q", id, line, want)
			}
			wc := strings.Fields(runOK(t, "", "wc", "-c", m.path("pages", id+".jsonc")))[0]
			if wc != fmt.Sprint(real.Size()) {
				t.Errorf("wc -c %s = %s, want %d", id, wc, real.Size())
			}
		}
		long := runOK(t, "", "ls", "-l", m.path("pages"))
		if n := strings.Count(long, ".jsonc"); n != len(ids) {
			t.Errorf("ls -l shows %d records, want %d", n, len(ids))
		}
	})

	t.Run("cat, cmp, grep -r and jq read the stored bytes", func(t *testing.T) {
		id := ids[7]
		got := runOK(t, "", "cat", m.path("pages", id+".jsonc"))
		if got != string(readFile(t, storedPath(root, "pages", id))) {
			t.Errorf("cat differs from the stored file")
		}
		runOK(t, "", "cmp", m.path("pages", id+".jsonc"), storedPath(root, "pages", id))
		hits := strings.Fields(runOK(t, "", "grep", "-rl", `"slug":"page-0007"`, m.dir))
		if len(hits) != 1 || !strings.HasSuffix(hits[0], "/pages/"+ids[7]+".jsonc") {
			t.Errorf("grep -rl page-0007 = %v", hits)
		}
		if got := strings.TrimSpace(runOK(t, "", "jq", "-r", ".data.slug", m.path("pages", id+".jsonc"))); got != "page-0007" {
			t.Errorf("jq .data.slug = %q", got)
		}
		all := runOK(t, "", "sh", "-c", "cat "+m.path("pages")+"/*.jsonc | jq -s length")
		if strings.TrimSpace(all) != fmt.Sprint(len(ids)) {
			t.Errorf("jq -s length over all records = %s, want %d", all, len(ids))
		}
	})

	t.Run("find -name and -newer", func(t *testing.T) {
		n := len(strings.Fields(runOK(t, "", "find", m.dir, "-name", "*.jsonc")))
		if total := len(ids) + len(storedIDs(t, root, "notes")) + len(storedIDs(t, root, "app/users")); n != total {
			t.Errorf("find -name *.jsonc = %d, want %d", n, total)
		}
		// Make one record newer than a reference file, directly in ROOT.
		ref := filepath.Join(t.TempDir(), "ref")
		writeFile(t, ref, "")
		old := time.Now().Add(-time.Hour)
		os.Chtimes(ref, old, old)
		for _, id := range ids {
			os.Chtimes(storedPath(root, "pages", id), old.Add(-time.Hour), old.Add(-time.Hour))
		}
		os.Chtimes(storedPath(root, "pages", ids[3]), time.Now(), time.Now())
		eventually(t, "find -newer sees exactly one record", func() bool {
			got := strings.Fields(runOK(t, "", "find", m.path("pages"), "-newer", ref, "-name", "*.jsonc"))
			return len(got) == 1 && strings.HasSuffix(got[0], ids[3]+".jsonc")
		})
	})

	// The listing's d_ino (ls -f -i) is the stat's st_ino, and the numbers
	// follow the ids (the demo makes them in one process, in order), so
	// fts (grep -r, find) walks the records in name order.
	t.Run("ls -i and stat agree, in id order", func(t *testing.T) {
		listed := map[string]string{}
		fields := strings.Fields(runOK(t, "", "ls", "-f", "-i", m.path("pages")))
		for i := 0; i+1 < len(fields); i += 2 {
			listed[fields[i+1]] = fields[i]
		}
		paths := make([]string, len(want))
		for i, name := range want {
			paths[i] = m.path("pages", name)
		}
		stats := strings.Fields(runOK(t, "", "stat", append([]string{"-c", "%i"}, paths...)...))
		if len(stats) != len(want) {
			t.Fatalf("stat printed %d numbers for %d records", len(stats), len(want))
		}
		descents := 0
		var last uint64
		for i, name := range want {
			if listed[name] != stats[i] {
				t.Errorf("%s: ls -i shows inode %q, stat %s", name, listed[name], stats[i])
			}
			ino, err := strconv.ParseUint(stats[i], 10, 64)
			if err != nil {
				t.Fatalf("stat -c %%i %s = %q: %v", name, stats[i], err)
			}
			if ino <= last {
				descents++ // once at most: the collection's offset may wrap
			}
			last = ino
		}
		if descents > 1 {
			t.Errorf("inode numbers fall %d times along %d records in name order", descents, len(want))
		}
	})

	t.Run("inode numbers are stable across remounts", func(t *testing.T) {
		first := runOK(t, "", "stat", "-c", "%i", m.path("pages", ids[0]+".jsonc"))
		if err := m.stop(); err != nil {
			t.Fatalf("unmount: %v", err)
		}
		m2 := startMount(t, root)
		second := runOK(t, "", "stat", "-c", "%i", m2.path("pages", ids[0]+".jsonc"))
		if first != second {
			t.Errorf("inode %s before remount, %s after", first, second)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(m2.path("pages", ids[1]+".jsonc"), &st); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(st.Ino)+"\n" == first {
			t.Errorf("two records share inode %d", st.Ino)
		}
	})
}

func TestOutsideChangesShowUp(t *testing.T) {
	requireFuse(t, "ls", "cat")
	root := demoRoot(t, 30)
	m := startMount(t, root)
	dir := m.path("notes")
	for range 3 { // warm the kernel caches, the readdir cache included
		runOK(t, "", "ls", dir)
	}

	id := newID(t)
	put := func(id, content string) {
		t.Helper()
		cmd := fmt.Sprintf("printf '%%s' '%s' | %s put %s notes %s", content, storhfsBin, root, id)
		sh(t, "", cmd)
	}
	put(id, `{"id":"`+id+`","data":{"text":"from outside"}}`)
	eventually(t, "new record appears in ls", func() bool {
		return strings.Contains(runOK(t, "", "ls", dir), id)
	})
	eventually(t, "new record readable", func() bool {
		out, _ := run("", "cat", filepath.Join(dir, id+".jsonc"))
		return strings.Contains(out, "from outside")
	})

	put(id, `{"id":"`+id+`","data":{"text":"updated outside, longer than before"}}`)
	eventually(t, "updated content visible", func() bool {
		out, _ := run("", "cat", filepath.Join(dir, id+".jsonc"))
		return strings.Contains(out, "updated outside")
	})
	eventually(t, "updated size visible", func() bool {
		fi, err := os.Stat(filepath.Join(dir, id+".jsonc"))
		real, _ := os.Stat(storedPath(root, "notes", id))
		return err == nil && real != nil && fi.Size() == real.Size()
	})

	runOK(t, "", storhfsBin, "delete", root, "notes", id)
	eventually(t, "deleted record disappears", func() bool {
		_, err := os.Stat(filepath.Join(dir, id+".jsonc"))
		return os.IsNotExist(err) && !strings.Contains(runOK(t, "", "ls", dir), id)
	})
	verify(t, root, "notes")
}

func TestUnmountOnSIGTERMWithOpenFile(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 10)
	m := startMount(t, root)
	id := storedIDs(t, root, "pages")[0]
	f, err := os.Open(m.path("pages", id+".jsonc"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := m.stop(); err != nil {
		t.Fatalf("SIGTERM with an open file: exit %v, want 0; stderr: %s", err, m.log)
	}
	if isMounted(m.dir) {
		t.Errorf("%s still mounted after SIGTERM", m.dir)
	}
}
