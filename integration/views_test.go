package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The hidden views of a collection (issue 15): COLL/.by/FIELD/VALUE/ and
// COLL/.all.ndjson, in both mount modes, driven with real tools.

var viewModes = []struct {
	name  string
	flags []string
}{{"rw", nil}, {"ro", []string{"-o", "ro"}}}

// viewsClient runs testdata/php/views_client.php (PHP storh on ROOT).
func viewsClient(t *testing.T, o phpOracle, root, coll string, args ...string) string {
	t.Helper()
	return o.runPHP(t, append([]string{phpScript("views_client.php"), root, coll}, args...)...)
}

// lsNames lists dir with ls (bytewise order, hidden names too).
func lsNames(t *testing.T, dir string) []string {
	t.Helper()
	out := runOK(t, "", "env", "LC_ALL=C", "ls", "-1A", dir)
	return strings.Fields(out)
}

func lsFails(t *testing.T, path string) {
	t.Helper()
	if out, err := run("", "ls", "-d", path+"/"); err == nil {
		t.Errorf("ls %s succeeded, want no such folder: %s", path, out)
	}
}

func jsonc(ids []string) []string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = id + ".jsonc"
	}
	return names
}

// exportOf is `storhfs export ROOT COLL -`: the bytes .all.ndjson must hold.
func exportOf(t *testing.T, root, coll string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, storhfsBin, "export", root, coll, "-")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("storhfs export: %v\n%s", err, stderr.String())
	}
	return stdout.Bytes()
}

// tagValues are the values of the "tags" collection's indexed field, with
// the folder names they must get (README.md, "Index folders and the
// whole-collection file").
var tagValues = []struct{ json, name string }{
	{`"plain"`, "plain"},
	{`"a/b"`, "a%2Fb"},
	{`".dot"`, "%2Edot"},
	{`"50%"`, "50%25"},
	{`"=eq"`, "%3Deq"},
	{`""`, `=""`},
	{`1`, "=1"},
	{`1.5`, "=1.5"},
	{`true`, "=true"},
	{`null`, "=null"},
}

// viewsRoot is a demo root (pages: kind, slug unique, score range) plus a
// collection "tags" holding every kind of value on the indexed field tag.
func viewsRoot(t *testing.T, o phpOracle) string {
	t.Helper()
	root := demoRoot(t, 40)
	viewsClient(t, o, root, "tags", "index", "tag")
	for _, v := range tagValues {
		viewsClient(t, o, root, "tags", "put", `{"tag":`+v.json+`}`)
		viewsClient(t, o, root, "tags", "put", `{"tag":`+v.json+`,"again":true}`)
	}
	viewsClient(t, o, root, "tags", "put", `{"untagged":1}`)
	viewsClient(t, o, root, "tags", "put", `{"tag":[1,2]}`) // arrays are not indexed
	return root
}

func TestViewsIndexFolders(t *testing.T) {
	requireFuse(t, "rsync")
	o := requireOracle(t)
	root := viewsRoot(t, o)
	for _, mode := range viewModes {
		t.Run(mode.name, func(t *testing.T) {
			m := startMount(t, root, mode.flags...)
			pages, tags := m.path("pages"), m.path("tags")
			records := storedIDs(t, root, "pages")

			// Hidden: every tool sees each record once.
			if names := lsNames(t, pages); len(names) != len(records) || slices.Contains(names, ".by") || slices.Contains(names, ".all.ndjson") {
				t.Fatalf("ls -A pages lists %d names (%v...), want the %d records only", len(names), names[:min(3, len(names))], len(records))
			}
			if n := strings.TrimSpace(sh(t, pages, "find . -type f | wc -l")); n != fmt.Sprint(len(records)) {
				t.Errorf("find sees %s files, want %d", n, len(records))
			}
			if n := strings.TrimSpace(sh(t, pages, `grep -rl '"kind"' . | wc -l`)); n != fmt.Sprint(len(records)) {
				t.Errorf("grep -r finds %s files, want %d", n, len(records))
			}
			dst := t.TempDir()
			runOK(t, "", "rsync", "-a", pages+"/", dst+"/")
			if copied, _ := filepath.Glob(filepath.Join(dst, "*")); len(copied) != len(records) {
				t.Errorf("rsync -a copied %d names, want %d", len(copied), len(records))
			}

			// Fields: equality and unique indexes only (score is range).
			if got := lsNames(t, filepath.Join(pages, ".by")); !slices.Equal(got, []string{"kind", "slug"}) {
				t.Errorf("ls pages/.by = %v, want [kind slug]", got)
			}
			lsFails(t, filepath.Join(pages, ".by", "score"))
			lsFails(t, filepath.Join(pages, ".by", "title"))

			// Values, and each value's records as PHP's indexed query.
			kinds := lsNames(t, filepath.Join(pages, ".by", "kind"))
			if len(kinds) < 2 {
				t.Fatalf("ls pages/.by/kind = %v, want the demo's kinds", kinds)
			}
			total := 0
			for _, kind := range kinds {
				want := strings.Fields(viewsClient(t, o, root, "pages", "eq", "kind", `"`+kind+`"`))
				got := lsNames(t, filepath.Join(pages, ".by", "kind", kind))
				if !slices.Equal(got, jsonc(want)) {
					t.Errorf("ls pages/.by/kind/%s = %v\nPHP where(kind)->eq: %v", kind, got, want)
				}
				total += len(got)
			}
			if total != len(records) {
				t.Errorf("the kind folders hold %d records, the collection %d", total, len(records))
			}

			// The entries are the records: same inode, same bytes.
			first := lsNames(t, filepath.Join(pages, ".by", "kind", kinds[0]))[0]
			viaBy, flat := filepath.Join(pages, ".by", "kind", kinds[0], first), filepath.Join(pages, first)
			if a, b := sh(t, "", "stat -c %i "+viaBy), sh(t, "", "stat -c %i "+flat); a != b {
				t.Errorf("inode through .by %s, in the folder %s", a, b)
			}
			runOK(t, "", "cmp", viaBy, flat)
			slug := strings.Fields(sh(t, "", "jq -r .data.slug "+flat))[0]
			if got := lsNames(t, filepath.Join(pages, ".by", "slug", slug)); !slices.Equal(got, []string{first}) {
				t.Errorf("ls pages/.by/slug/%s = %v, want [%s]", slug, got, first)
			}

			// The name encoding, value by value, against PHP.
			var wantNames []string
			for _, v := range tagValues {
				wantNames = append(wantNames, v.name)
				want := strings.Fields(viewsClient(t, o, root, "tags", "eq", "tag", v.json))
				got := lsNames(t, filepath.Join(tags, ".by", "tag", v.name))
				if len(want) != 2 || !slices.Equal(got, jsonc(want)) {
					t.Errorf("ls tags/.by/tag/%s = %v\nPHP where(tag)->eq(%s): %v", v.name, got, v.json, want)
				}
			}
			slices.Sort(wantNames)
			if got := lsNames(t, filepath.Join(tags, ".by", "tag")); !slices.Equal(got, wantNames) {
				t.Errorf("ls tags/.by/tag = %v\nwant %v", got, wantNames)
			}
			for _, bad := range []string{"%2Fa", "%41", ".dot", "=eq", `="plain"`, "=1.50", "=01", "missing", "=false"} {
				lsFails(t, filepath.Join(tags, ".by", "tag", bad))
			}

			// Read-only: nothing is created, removed or renamed in .by.
			dir := filepath.Join(pages, ".by", "kind", kinds[0])
			for _, script := range []string{
				"touch " + dir + "/new.jsonc",
				"mkdir " + dir + "/sub",
				"mkdir " + pages + "/.by/new",
				"rm " + dir + "/" + first,
				"mv " + dir + "/" + first + " " + dir + "/x.jsonc",
				"rmdir " + pages + "/.by",
			} {
				out, err := run("", "sh", "-c", script)
				if err == nil || !refusedReadOnly(out) {
					t.Errorf("%s: %v %q, want EROFS", script, err, out)
				}
			}
			if got := storedIDs(t, root, "pages"); len(got) != len(records) {
				t.Errorf("the collection holds %d records after the refused changes, want %d", len(got), len(records))
			}
		})
	}
}

func TestViewsAllFile(t *testing.T) {
	requireFuse(t, "jq")
	root := demoRoot(t, 300)
	want := exportOf(t, root, "pages")
	lines := bytes.Count(want, []byte("\n"))
	for _, mode := range viewModes {
		t.Run(mode.name, func(t *testing.T) {
			m := startMount(t, root, mode.flags...)
			all := m.path("pages", ".all.ndjson")
			if got := readFile(t, all); !bytes.Equal(got, want) {
				t.Fatalf("read %d bytes, storhfs export writes %d", len(got), len(want))
			}
			if got := runOK(t, "", "cat", all); got != string(want) {
				t.Errorf("cat differs from storhfs export")
			}
			copied := filepath.Join(t.TempDir(), "copy.ndjson")
			runOK(t, "", "cp", all, copied)
			runOK(t, "", "cmp", copied, filepath.Join(m.dir, "pages", ".all.ndjson"))
			if got := readFile(t, copied); !bytes.Equal(got, want) {
				t.Errorf("cp copied %d bytes, want %d", len(got), len(want))
			}
			if n := strings.TrimSpace(sh(t, "", "wc -l < "+all)); n != fmt.Sprint(lines) {
				t.Errorf("wc -l = %s, want %d", n, lines)
			}
			posts := bytes.Count(want, []byte(`"kind":"post"`))
			if n := strings.TrimSpace(sh(t, "", `grep -c '"kind":"post"' `+all)); n != fmt.Sprint(posts) {
				t.Errorf("grep -c = %s, want %d", n, posts)
			}
			if n := strings.TrimSpace(sh(t, "", `jq -c 'select(.data.kind=="post")' `+all+" | wc -l")); n != fmt.Sprint(posts) {
				t.Errorf("jq select = %s lines, want %d", n, posts)
			}
			// Reads at an offset.
			if got := sh(t, "", "dd if="+all+" bs=4096 skip=2 status=none"); got != string(want[8192:]) {
				t.Errorf("dd skip=2 read %d bytes, want %d", len(got), len(want)-8192)
			}
			lastTwo := want[bytes.LastIndexByte(want[:bytes.LastIndexByte(want[:len(want)-1], '\n')], '\n')+1:]
			if got := sh(t, "", "tail -n 2 "+all); got != string(lastTwo) {
				t.Errorf("tail -n 2 = %q, want %q", got, lastTwo)
			}
			// Size: exact where the kernel sends no OPEN (a read-only mount,
			// --no-open), 0 (as /proc) with direct I/O.
			size := strings.TrimSpace(sh(t, "", "stat -c %s "+all))
			if wantSize := map[bool]int{false: 0, true: len(want)}[mode.name == "ro" || noOpen]; size != fmt.Sprint(wantSize) {
				t.Errorf("stat size %s, want %d", size, wantSize)
			}
			scratch := m.path("pages", "notes.tmp")
			for _, script := range []string{"echo x >> " + all, "touch " + all, "rm " + all, ": > " + all,
				"echo x > " + scratch + " && mv " + scratch + " " + all, "mv " + all + " " + scratch} {
				out, err := run("", "sh", "-c", script)
				if err == nil || !refusedReadOnly(out) {
					t.Errorf("%s: %v %q, want EROFS", script, err, out)
				}
			}
			if got := readFile(t, all); !bytes.Equal(got, want) {
				t.Errorf("after the refused writes the file differs")
			}
		})
	}
}

// TestViewsLive: changes by PHP, and on a read-write mount through the
// mount, show up in .by and .all.ndjson as they do in the folder, whatever
// the kernel cached before (long cache timeouts, coverage.go).
func TestViewsLive(t *testing.T) {
	requireFuse(t, "jq")
	o := requireOracle(t)
	for _, mode := range viewModes {
		t.Run(mode.name, func(t *testing.T) {
			root := demoRoot(t, 30)
			m := startMount(t, root, mode.flags...)
			pages := m.path("pages")
			all := filepath.Join(pages, ".all.ndjson")
			byKind := func(kind string) []string {
				out, err := run("", "env", "LC_ALL=C", "ls", "-1A", filepath.Join(pages, ".by", "kind", kind))
				if err != nil {
					return nil // no record has the value: no folder
				}
				return strings.Fields(out)
			}
			allHas := func(needle string) bool {
				got, err := os.ReadFile(all)
				return err == nil && bytes.Contains(got, []byte(needle))
			}
			var lastSeen string // what the last check read, for the failure message
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("last read of .all.ndjson: %s", lastSeen)
				}
			})
			matchesExport := func() bool {
				got, err := os.ReadFile(all)
				want := exportOf(t, root, "pages")
				lastSeen = fmt.Sprintf("%d bytes (%v), export %d bytes, size %s", len(got), err, len(want), sh(t, "", "stat -c %s "+all))
				return err == nil && bytes.Equal(got, want)
			}
			// Warm every cache first.
			sh(t, pages, "ls -l .by/kind/* >/dev/null; cat .all.ndjson >/dev/null; ls -l >/dev/null")

			id := strings.TrimSpace(viewsClient(t, o, root, "pages", "put", `{"kind":"live","slug":"live-1","title":"ultraviolet"}`))
			eventually(t, "a PHP put shows in .by/kind/live", func() bool { return slices.Equal(byKind("live"), []string{id + ".jsonc"}) })
			eventually(t, "a PHP put shows in .all.ndjson", func() bool { return allHas("ultraviolet") && matchesExport() })
			if out, err := run("", "ls", filepath.Join(pages, ".by", "slug", "live-1")); err != nil || strings.TrimSpace(out) != id+".jsonc" {
				t.Errorf("ls .by/slug/live-1: %v %q", err, out)
			}

			// A record first read through .by: a PHP rewrite that keeps its
			// value and its size shows there too (its node is cached long,
			// coverage.go).
			viaBy := filepath.Join(pages, ".by", "kind", "live", id+".jsonc")
			readFile(t, viaBy)
			viewsClient(t, o, root, "pages", "put", `{"kind":"live","slug":"live-1","title":"ultraviolot"}`, id)
			eventually(t, "a PHP rewrite shows through .by", func() bool {
				got, err := os.ReadFile(viaBy)
				return err == nil && bytes.Equal(got, readFile(t, storedPath(root, "pages", id)))
			})

			viewsClient(t, o, root, "pages", "put", `{"kind":"post","slug":"live-1","title":"infrared"}`, id)
			eventually(t, "a PHP change moves the record out of .by/kind/live", func() bool { return len(byKind("live")) == 0 })
			eventually(t, "and into .by/kind/post", func() bool { return slices.Contains(byKind("post"), id+".jsonc") })
			eventually(t, "a PHP change shows in .all.ndjson", func() bool { return !allHas("ultraviolet") && allHas("infrared") && matchesExport() })

			viewsClient(t, o, root, "pages", "delete", id)
			eventually(t, "a PHP delete leaves .by", func() bool { return !slices.Contains(byKind("post"), id+".jsonc") })
			eventually(t, "a PHP delete leaves .all.ndjson", func() bool { return !allHas(id) && matchesExport() })

			// A bucket moved in whole (its record already inside): the
			// watcher learns of the record only by scanning the new bucket.
			moved := newID(t)
			for {
				if _, err := os.Stat(filepath.Join(root, "pages", "data", moved[24:26])); os.IsNotExist(err) {
					break
				}
				moved = newID(t)
			}
			staging := filepath.Join(root, ".staging")
			if err := os.MkdirAll(staging, 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(staging, moved+".jsonc"), `{"id":"`+moved+`","data":{"kind":"moved"}}`+"\n")
			if err := os.Rename(staging, filepath.Join(root, "pages", "data", moved[24:26])); err != nil {
				t.Fatal(err)
			}
			eventually(t, "a record in a bucket moved in shows in .all.ndjson", func() bool { return allHas(moved) && matchesExport() })

			if mode.name == "ro" {
				return
			}
			// Through the mount: shown at once, no wait.
			mine := newID(t)
			if got := byKind("mounted"); got != nil {
				t.Fatalf(".by/kind/mounted lists %v before any record has the value", got)
			}
			writeFile(t, filepath.Join(pages, mine+".jsonc"), `{"id":"`+mine+`","data":{"kind":"mounted","slug":"m-1","title":"ultraviolet"}}`+"\n")
			if got := byKind("mounted"); !slices.Equal(got, []string{mine + ".jsonc"}) {
				t.Errorf("after a write through the mount, .by/kind/mounted = %v", got)
			}
			if !allHas(mine) || !matchesExport() {
				t.Errorf("after a write through the mount, .all.ndjson lacks it")
			}
			writeFile(t, filepath.Join(pages, ".by", "kind", "mounted", mine+".jsonc"), `{"id":"`+mine+`","data":{"kind":"other","slug":"m-1"}}`+"\n")
			if len(byKind("mounted")) != 0 || !slices.Contains(byKind("other"), mine+".jsonc") {
				t.Errorf("a rewrite through .by did not move the record: mounted %v, other %v", byKind("mounted"), byKind("other"))
			}
			runOK(t, "", "rm", filepath.Join(pages, mine+".jsonc"))
			if len(byKind("other")) != 0 || allHas(mine) {
				t.Errorf("after rm through the mount the record is still in a view")
			}
			if got := strings.TrimSpace(sh(t, "", "jq -c .data.kind "+all+" | sort -u | wc -l")); got == "0" {
				t.Errorf("jq reads nothing")
			}
		})
	}
}
