package docstore

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/internal/treetest"
)

// crashScene is a collection left as a writer killed mid-put leaves it,
// next to the temps of a writer that is still alive.
type crashScene struct {
	root, dir string
	ids       []string
	deadTemps []string // relative to dir: must be swept
	liveTemps []string // relative to dir: must stay
}

const (
	deadWriter = "2147483646.deadbeef" // no such pid
	ghostID    = "018fbbf0-ffff-7fff-bfff-ab0000000099"
)

// newCrashScene builds indexes slug (unique), kind and tag (equality, so
// also the compound kind+tag) and n (range), reindexes them into their
// canonical files, then plants a dead writer's marker and temps and drift
// in the kind, slug and n indexes (tag and the compound stay right).
func newCrashScene(t *testing.T) *crashScene {
	t.Helper()
	root := t.TempDir()
	s, err := Open(root, "pages", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defs := []docindex.Definition{{Field: "slug", Unique: true}, {Field: "kind"}, {Field: "tag"}, {Field: "n", Range: true}}
	if err := s.SyncIndexes(defs, true); err != nil {
		t.Fatal(err)
	}
	ids := sequentialIDs(t, 12)
	for i, id := range ids {
		data := obj("slug", "s"+strconv.Itoa(i), "kind", []string{"post", "page", "note"}[i%3], "tag", "t"+strconv.Itoa(i%2), "n", i*10)
		if _, err := s.Put(data, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Reindex(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c := &crashScene{root: root, dir: CollectionDir(root, "pages"), ids: ids}
	entries := c.dir + "/.storh/indexes/entries"
	kindDir := entries + "/eq/" + docindex.FieldKey("kind")
	live := strconv.Itoa(os.Getppid()) + ".abcdef01" // the test runner: alive

	// Each drifted index gets an id of a record that does not exist (a
	// delete whose record unlink went through and whose index removal did
	// not) and loses the entry of a record that exists (a put whose index
	// update never happened).
	// kind: the ghost in the "post" entry, ids[1] gone from "page".
	editFile(t, kindDir+"/"+docindex.ValueKey("post")+".jsonc", `"count":4`, `"count":5`, `"ids":[`, `"ids":["`+ghostID+`",`)
	editFile(t, kindDir+"/"+docindex.ValueKey("page")+".jsonc", `"count":4`, `"count":3`, `"`+ids[1]+`",`, ``)
	// slug: an entry file for the ghost, the one of s3 gone.
	slugDir := entries + "/eq/" + docindex.FieldKey("slug")
	vk := docindex.ValueKey("ghost")
	writeFile(t, slugDir+"/"+vk+".jsonc", []byte(`{"field":"slug","key":"`+vk+`","count":1,"value":"ghost","ids":["`+ghostID+`"]}`+"\n"))
	mustRemove(t, slugDir+"/"+docindex.ValueKey("s3")+".jsonc")
	// n: delta lines adding the ghost and removing ids[2] (n = 20).
	writeFile(t, entries+"/range/"+docindex.FieldKey("n")+".delta.jsonl", []byte(
		`{"key":"`+docindex.RangeKey(int64(350))+`","value":350,"count":1,"ids":["`+ghostID+`"],"remove":[]}`+"\n"+
			`{"key":"`+docindex.RangeKey(int64(20))+`","value":20,"count":-1,"ids":[],"remove":["`+ids[2]+`"]}`+"\n"))

	c.deadTemps = []string{
		".storh/indexes/entries/eq/" + docindex.FieldKey("kind") + "/.s-706f7374.jsonc.0123456789ab.tmp", // 0 s old
		".storh/indexes/.manifest.jsonc.aaaaaaaaaaaa.tmp",
		".storh/indexes/entries/range/." + docindex.FieldKey("n") + ".jsonl.bbbbbbbbbbbb.tmp",
		".storh/indexes/entries/eq/" + docindex.FieldKey("tag") + "/." + deadWriter + ".3.tmp",
		"data/ab/." + deadWriter + ".1.tmp",
	}
	// A live writer's PID temps are kept by both sweeps. (Only in an
	// index that is not rebuilt: a rebuild deletes its index's directory
	// as reindex does, and no live writer has a file there while we hold
	// the lock; see TestOpenAfterDeadWriterWaitsForLockHolder.)
	c.liveTemps = []string{
		"data/ab/." + live + ".1.tmp",
		".storh/indexes/entries/eq/" + docindex.FieldKey("tag") + "/." + live + ".2.tmp",
		".storh/writers/" + live,
	}
	for _, rel := range append(append([]string{".storh/writers/" + deadWriter}, c.deadTemps...), c.liveTemps...) {
		if err := os.MkdirAll(filepath.Dir(c.dir+"/"+rel), 0o777); err != nil {
			t.Fatal(err)
		}
		writeFile(t, c.dir+"/"+rel, nil)
	}
	return c
}

func (c *crashScene) open(t *testing.T, opts Options) (*Store, string) {
	t.Helper()
	s, logged, err := c.openLogged(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, logged
}

// openLogged opens the store and returns what Open logged.
func (c *crashScene) openLogged(opts Options) (*Store, string, error) {
	var logged bytes.Buffer
	opts.Logger = log.New(&logged, "", 0)
	s, err := Open(c.root, "pages", opts)
	return s, logged.String(), err
}

// checkTemps: the dead writer's temps and marker are gone, the live
// writer's are all still there.
func (c *crashScene) checkTemps(t *testing.T) {
	t.Helper()
	for _, rel := range append([]string{".storh/writers/" + deadWriter}, c.deadTemps...) {
		if _, err := os.Lstat(c.dir + "/" + rel); err == nil {
			t.Errorf("%s was not swept", rel)
		}
	}
	for _, rel := range c.liveTemps {
		if _, err := os.Lstat(c.dir + "/" + rel); err != nil {
			t.Errorf("a live writer's %s: %v", rel, err)
		}
	}
}

var wantDriftLines = []string{
	`index drift: equality index "kind": 2 entries differ from the records (1 ids missing, 1 extra)`,
	`index drift: unique index "slug": 2 entries differ from the records (1 ids missing, 1 extra)`,
	`index drift: range index "n": 2 entries differ from the records (1 ids missing, 1 extra)`,
}

func TestOpenAfterDeadWriterRepairsIndexes(t *testing.T) {
	c := newCrashScene(t)
	s, logged := c.open(t, Options{})
	c.checkTemps(t)
	for _, line := range append(wantDriftLines, "checked the indexes after dead writer(s) "+deadWriter, "3 drifted", "rebuilt 3 drifted index(es)") {
		if !strings.Contains(logged, line) {
			t.Errorf("log lacks %q:\n%s", line, logged)
		}
	}
	if strings.Contains(logged, `"tag"`) {
		t.Errorf("an index without drift was reported:\n%s", logged)
	}
	v, err := s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(t, v); !strings.HasPrefix(got, `{"ok":true,"errors":[]`) {
		t.Fatalf("verify after open: %s", got)
	}
	// The repaired files are a fresh reindex's, byte for byte (tag and
	// the compound were canonical already).
	indexes := c.dir + "/.storh/indexes"
	repaired := withoutLiveTemps(treetest.Snapshot(t, indexes))
	if _, err := s.Reindex(); err != nil {
		t.Fatal(err)
	}
	treetest.AssertSame(t, "reindex after the repair", repaired, withoutLiveTemps(treetest.Snapshot(t, indexes)))
	// Indexed lookups find what the records say again.
	if got, err := s.Query().Where("slug", "eq", "s3").Get(); err != nil || len(got) != 1 || got[0].ID != c.ids[3] {
		t.Errorf("slug s3 finds %v, %v", got, err)
	}
	if got, err := s.Query().Where("kind", "eq", "page").Get(); err != nil || len(got) != 4 || got[0].ID != c.ids[1] {
		t.Errorf("kind page finds %v, %v", got, err)
	}
	if got, err := s.Query().Where("n", "between", int64(20), int64(20)).Get(); err != nil || len(got) != 1 || got[0].ID != c.ids[2] {
		t.Errorf("n between 20 and 20 finds %v, %v", got, err)
	}
}

func TestOpenAfterDeadWriterNoRepair(t *testing.T) {
	c := newCrashScene(t)
	indexes := c.dir + "/.storh/indexes"
	before := treetest.Snapshot(t, indexes)
	_, logged := c.open(t, Options{NoRepair: true})
	c.checkTemps(t)
	for _, line := range append(wantDriftLines, "not repaired") {
		if !strings.Contains(logged, line) {
			t.Errorf("log lacks %q:\n%s", line, logged)
		}
	}
	for _, rel := range c.deadTemps {
		if rel, ok := strings.CutPrefix(rel, ".storh/indexes/"); ok {
			delete(before, rel)
		}
	}
	treetest.AssertSame(t, "open with NoRepair", before, treetest.Snapshot(t, indexes))
}

// Without a dead marker, Open reads no record and changes no index.
func TestOpenWithoutDeadWriterChecksNothing(t *testing.T) {
	c := newCrashScene(t)
	mustRemove(t, c.dir+"/.storh/writers/"+deadWriter)
	indexes := c.dir + "/.storh/indexes"
	before := treetest.Snapshot(t, indexes)
	_, logged := c.open(t, Options{})
	if logged != "" {
		t.Errorf("logged:\n%s", logged)
	}
	treetest.AssertSame(t, "open", before, treetest.Snapshot(t, indexes))
}

// A corrupt record stops the check before anything is rebuilt.
func TestOpenAfterDeadWriterWithCorruptRecord(t *testing.T) {
	c := newCrashScene(t)
	writeFile(t, c.dir+"/data/"+c.ids[5][24:26]+"/"+c.ids[5]+".jsonc", []byte("{torn"))
	indexes := c.dir + "/.storh/indexes"
	before := treetest.Snapshot(t, indexes)
	_, logged := c.open(t, Options{})
	if !strings.Contains(logged, "storhfs repair") {
		t.Errorf("log does not point to repair:\n%s", logged)
	}
	for _, rel := range c.deadTemps {
		if rel, ok := strings.CutPrefix(rel, ".storh/indexes/"); ok {
			delete(before, rel)
		}
	}
	treetest.AssertSame(t, "open", before, treetest.Snapshot(t, indexes))
}

// A live writer (PHP or another storhfs) writes index files only while it
// holds the collection lock, and its index temps carry no PID. Open must
// wait for the lock before it sweeps them: the writer's rename succeeds.
func TestOpenAfterDeadWriterWaitsForLockHolder(t *testing.T) {
	c := newCrashScene(t)
	holder, err := fsutil.OpenLock(c.dir+"/.storh/write.lock", os.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	kindDir := c.dir + "/.storh/indexes/entries/eq/" + docindex.FieldKey("kind")
	final := kindDir + "/" + docindex.ValueKey("page") + ".jsonc"
	temp := kindDir + "/." + docindex.ValueKey("page") + ".jsonc.0123456789ab.tmp"
	writeFile(t, temp, readFile(t, final)) // the same bytes: no new drift

	opened := make(chan string, 1)
	go func() {
		s, logged, err := c.openLogged(Options{})
		if err == nil {
			err = s.Close()
		}
		if err != nil {
			logged += err.Error()
		}
		opened <- logged
	}()
	waitForLockWaiter(t, c.dir+"/.storh/write.lock")
	if err := os.Rename(temp, final); err != nil {
		t.Fatalf("the lock holder's temp was taken from it: %v", err)
	}
	if err := holder.Unlock(); err != nil {
		t.Fatal(err)
	}
	if logged := <-opened; !strings.Contains(logged, "rebuilt 3 drifted index(es)") {
		t.Errorf("after the holder unlocked:\n%s", logged)
	}
	c.checkTemps(t)
}

// waitForLockWaiter waits (at most 10 s) until /proc/locks shows a process
// blocked on the flock of path.
func waitForLockWaiter(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	inode := ":" + strconv.FormatUint(fi.Sys().(*syscall.Stat_t).Ino, 10) + " "
	deadline := time.Now().Add(10 * time.Second)
	for {
		locks, err := os.ReadFile("/proc/locks")
		if err != nil {
			t.Skipf("no /proc/locks: %v", err)
		}
		for _, line := range strings.Split(string(locks), "\n") {
			if strings.Contains(line, "-> FLOCK") && strings.Contains(line, inode) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Open did not wait for the lock within 10 s; /proc/locks:\n%s", locks)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// withoutLiveTemps drops the live writer's index temp from a snapshot.
func withoutLiveTemps(snap map[string]string) map[string]string {
	for p := range snap {
		if strings.HasSuffix(p, ".tmp") {
			delete(snap, p)
		}
	}
	return snap
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
}

// editFile replaces each old string (pairs of old, new) once in the file.
func editFile(t *testing.T, path string, oldNew ...string) {
	t.Helper()
	b := readFile(t, path)
	for i := 0; i+1 < len(oldNew); i += 2 {
		if !bytes.Contains(b, []byte(oldNew[i])) {
			t.Fatalf("%s has no %q:\n%s", path, oldNew[i], b)
		}
		b = bytes.Replace(b, []byte(oldNew[i]), []byte(oldNew[i+1]), 1)
	}
	writeFile(t, path, b)
}

func mustRemove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}
