package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/shard"
)

// The generator writes record files itself; they must be exactly what the
// core's Put writes for the same data.
func TestRecordBytesMatchPut(t *testing.T) {
	root := t.TempDir()
	s, err := docstore.Open(root, "c", docstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, i := range []int{0, 1, needleMod, 99, 12345, firstCreated} {
		rec, err := s.Put(recordData(i), "")
		if err != nil {
			t.Fatal(err)
		}
		stored, err := os.ReadFile(s.RecordPath(rec.ID))
		if err != nil {
			t.Fatal(err)
		}
		got, err := recordBytes(rec.ID, recordData(i))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, stored) {
			t.Errorf("record %d:\n got %s\nwant %s", i, got, stored)
		}
	}
}

func TestRecordDataNeedleAndDeterminism(t *testing.T) {
	hits := 0
	for i := range 1000 {
		b, err := recordBytes("x", recordData(i))
		if err != nil {
			t.Fatal(err)
		}
		again, _ := recordBytes("x", recordData(i))
		if !bytes.Equal(b, again) {
			t.Fatalf("record %d differs between calls", i)
		}
		if n := bytes.Count(b, []byte(needle)); n > 1 {
			t.Fatalf("record %d holds the needle %d times", i, n)
		} else if n == 1 {
			hits++
		}
	}
	if hits != 10 {
		t.Errorf("needle in %d of 1000 records, want 10", hits)
	}
}

func TestGenerateRecordsAndFileLists(t *testing.T) {
	d := newDataset(t.TempDir(), 300, 0)
	var logged []string
	if err := d.ensure(func(f string, a ...any) { logged = append(logged, f) }); err != nil {
		t.Fatal(err)
	}
	if n, err := countRecordFiles(d.pagesDir()); err != nil || n != 300 {
		t.Fatalf("countRecordFiles = %d, %v", n, err)
	}
	// A second ensure reuses the data set.
	logged = nil
	if err := d.ensure(func(f string, a ...any) { logged = append(logged, f) }); err != nil || len(logged) != 0 {
		t.Fatalf("second ensure regenerated (%v, %v)", logged, err)
	}
	buckets, err := d.bucketDirs()
	if err != nil || len(buckets) == 0 || len(buckets) > 256 {
		t.Fatalf("bucketDirs = %d, %v", len(buckets), err)
	}
	lists, err := writeFileLists(d, buckets)
	if err != nil {
		t.Fatal(err)
	}
	native := readList(t, lists.native)
	mount := readList(t, lists.mount)
	floor := readList(t, lists.floor)
	if len(native) != 300 || len(mount) != 300 || len(floor) != 300 {
		t.Fatalf("lists hold %d, %d and %d files", len(native), len(mount), len(floor))
	}
	for i, p := range floor {
		if p != filepath.Join(d.floorMountpoint(), filepath.Base(mount[i])) {
			t.Fatalf("floor list entry %d is %s, mount list has %s", i, p, mount[i])
		}
	}
	byName := map[string]bool{}
	for _, p := range native {
		if !strings.HasPrefix(p, shard.DataDir(d.pagesDir())) {
			t.Fatalf("native path %s outside data/", p)
		}
		byName[filepath.Base(p)] = true
	}
	for i, p := range mount {
		if filepath.Dir(p) != filepath.Join(d.mountpoint(), recordsCollection) || !byName[filepath.Base(p)] {
			t.Fatalf("mount path %s is not a listed record in the mounted collection", p)
		}
		if i > 0 && mount[i-1] >= p {
			t.Fatalf("mount list not in id order at %d", i)
		}
	}
	s, err := docstore.Open(d.root(), recordsCollection, docstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id := strings.TrimSuffix(filepath.Base(mount[0]), ".jsonc")
	if _, err := s.Get(id); err != nil {
		t.Errorf("generated record %s not readable by the core: %v", id, err)
	}
}

func readList(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

func TestGenerateLog(t *testing.T) {
	d := newDataset(t.TempDir(), 1, 2500)
	if err := d.ensure(func(string, ...any) {}); err != nil {
		t.Fatal(err)
	}
	segs, err := d.segmentFiles()
	if err != nil || len(segs) == 0 {
		t.Fatalf("segmentFiles = %v, %v", segs, err)
	}
	lines := 0
	for _, s := range segs {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if lines != 2500 {
		t.Errorf("segments hold %d lines, want 2500", lines)
	}
	if _, err := newDataset(t.TempDir(), 1, 0).segmentFiles(); err == nil {
		t.Error("segmentFiles of a data set without a log: want an error")
	}
}

func TestCreateChildAndNativeCreate(t *testing.T) {
	root := t.TempDir()
	names, err := freshCollections(root, "c", 2)
	if err != nil {
		t.Fatal(err)
	}
	// The child writes into any directory; here a plain one stands in for the mount.
	plain := filepath.Join(root, "plain")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := runCreateChild([]string{plain, "5"}, &out); err != nil {
		t.Fatal(err)
	}
	if ns, err := strconv.ParseInt(strings.TrimSpace(out.String()), 10, 64); err != nil || ns <= 0 {
		t.Errorf("child printed %q, want elapsed ns", out.String())
	}
	if entries, _ := os.ReadDir(plain); len(entries) != 5 {
		t.Errorf("child wrote %d files, want 5", len(entries))
	}
	for _, bad := range [][]string{nil, {plain}, {plain, "x"}, {filepath.Join(root, "missing"), "1"}} {
		if err := runCreateChild(bad, io.Discard); err == nil {
			t.Errorf("runCreateChild(%q): want an error", bad)
		}
	}
	d, n, err := nativeCreate(root, 7)(0) // into c1
	if err != nil || n != 7 || d <= 0 {
		t.Fatalf("nativeCreate = %v, %d, %v", d, n, err)
	}
	if err := removeCollections(root, names); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "c1")); !os.IsNotExist(err) {
		t.Errorf("collection c1 not removed: %v", err)
	}
}

func TestToolSide(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.jsonc", "b.jsonc", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("hello\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, n, err := tool([]string{"ls", "-f", dir}, "", countSuffix, ".jsonc")(0); err != nil || n != 2 {
		t.Errorf("ls -f: %d, %v", n, err)
	}
	if _, n, err := tool([]string{"cat", filepath.Join(dir, "a.jsonc")}, "", countBytes, "")(0); err != nil || n != 6 {
		t.Errorf("cat: %d, %v", n, err)
	}
	if _, _, err := tool([]string{"cat", filepath.Join(dir, "missing")}, "", countBytes, "")(0); err == nil {
		t.Error("cat of a missing file: want an error")
	}
	if _, _, err := tool([]string{"cat"}, filepath.Join(dir, "missing"), countBytes, "")(0); err == nil {
		t.Error("missing stdin file: want an error")
	}
}
