package shard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"
)

func TestPaths(t *testing.T) {
	id := "018BCFE5-6800-7000-8000-AB0000000000"
	if got := BucketOf(id); got != "AB" {
		t.Fatalf("bucket %q", got)
	}
	if got := RecordPath("/r/pages", id); got != "/r/pages/data/AB/"+id+".jsonc" {
		t.Fatalf("path %q", got)
	}
	if got := RecordPath("/r/", "018bcfe5-6800-7000-8000-2d0000000001"); got != "/r//data/2d/018bcfe5-6800-7000-8000-2d0000000001.jsonc" {
		t.Fatalf("path %q (no cleaning, like PHP)", got)
	}
	for _, short := range []string{"", "abc", "0123456789012345678901234"} {
		if BucketOf(short) != "" {
			t.Fatalf("BucketOf(%q) must be empty", short)
		}
	}
}

func TestIDFromName(t *testing.T) {
	cases := []struct {
		name, id string
		ok       bool
	}{
		{"a.jsonc", "a", true},
		{"x.y.jsonc", "x.y", true},
		{".hidden.jsonc", ".hidden", true},
		{".jsonc", "", false},
		{"a.JSONC", "", false},
		{"a.jsonc.tmp", "", false},
		{".28456.16cd98b2.1.tmp", "", false},
		{"jsonc", "", false},
	}
	for _, c := range cases {
		id, ok := IDFromName(c.name)
		if id != c.id || ok != c.ok {
			t.Errorf("IDFromName(%q) = %q, %v", c.name, id, ok)
		}
	}
}

const (
	idLowAB = "018bcfe5-6800-7000-8000-ab0000000001"
	idUpAB  = "018BCFE5-6800-7000-8000-AB0000000002"
	id2d    = "018bcfe5-6800-7000-8000-2d0000000003"
	idMixed = "018bcfe5-6800-7000-8000-Ab0000000004"
	idWrong = "018bcfe5-6801-7000-8000-9f0000000005" // stored in data/2d
)

// fixture builds a collection with upper/lower buckets, a wrong-bucket
// file and every kind of name the scan must ignore.
func fixture(t *testing.T) string {
	t.Helper()
	c := t.TempDir()
	files := []string{
		"data/ab/" + idLowAB + ".jsonc",
		"data/AB/" + idUpAB + ".jsonc",
		"data/2d/" + id2d + ".jsonc",
		"data/Ab/" + idMixed + ".jsonc",
		"data/2d/" + idWrong + ".jsonc",
		"data/ab/.28456.16cd98b2.1.tmp",
		"data/ab/." + idLowAB + ".jsonc.0123456789ab.tmp",
		"data/ab/.jsonc",
		"data/ab/readme.txt",
		"data/ab/x.JSONC",
		"data/loose.jsonc",                  // directly in data/: PHP's recursive scan lists it
		"data/ab/deeper/nested.jsonc",       // any depth
		"data/ab/not-a-uuid.jsonc",          // listed: PHP reads it and reports it corrupt
		".storh/corrupt/" + id2d + ".jsonc", // outside data/: never listed
	}
	for _, f := range files {
		p := filepath.Join(c, f)
		os.MkdirAll(filepath.Dir(p), 0o777)
		if err := os.WriteFile(p, []byte("{}"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(c, "data/ab/dir.jsonc"), 0o777) // a directory, not a record
	return c
}

func walkIDs(t *testing.T, c, after string) ([]string, []string) {
	t.Helper()
	var ids, paths []string
	err := Walk(c, after, func(e Entry) error {
		ids = append(ids, e.ID)
		paths = append(paths, e.Path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, paths
}

func TestWalkOrderAndSelection(t *testing.T) {
	c := fixture(t)
	ids, paths := walkIDs(t, c, "")
	want := []string{idUpAB, id2d, idMixed, idLowAB, idWrong, "loose", "nested", "not-a-uuid"}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("ids\n got %v\nwant %v", ids, want)
	}
	if !sort.StringsAreSorted(ids) {
		t.Fatal("not bytewise sorted")
	}
	wantPaths := map[string]string{
		idUpAB:   c + "/data/AB/" + idUpAB + ".jsonc",
		idWrong:  c + "/data/2d/" + idWrong + ".jsonc",
		"loose":  c + "/data/loose.jsonc",
		"nested": c + "/data/ab/deeper/nested.jsonc",
	}
	for i, id := range ids {
		if w, ok := wantPaths[id]; ok && paths[i] != w {
			t.Errorf("path of %s = %s, want %s", id, paths[i], w)
		}
	}
}

func TestWalkAfter(t *testing.T) {
	c := fixture(t)
	cases := []struct {
		after string
		first string
		n     int
	}{
		{"", idUpAB, 8},
		{idUpAB, id2d, 7},
		{id2d, idMixed, 6},
		{"018bcfe5-6800-7000-8000-ab", idLowAB, 5}, // not an existing id: strictly greater
		{idWrong, "loose", 3},
		{"zzz", "", 0},
	}
	for _, cs := range cases {
		ids, _ := walkIDs(t, c, cs.after)
		if len(ids) != cs.n || (cs.n > 0 && ids[0] != cs.first) {
			t.Errorf("after %q: got %v", cs.after, ids)
		}
	}
}

func TestWalkStopAndErrors(t *testing.T) {
	c := fixture(t)
	n := 0
	err := Walk(c, "", func(Entry) error {
		n++
		if n == 2 {
			return ErrStop
		}
		return nil
	})
	if err != nil || n != 2 {
		t.Fatalf("ErrStop: err=%v n=%d", err, n)
	}
	boom := errors.New("boom")
	if err := Walk(c, "", func(Entry) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("callback error lost: %v", err)
	}
	if err := Walk(c, "", func(Entry) error { return fmt.Errorf("wrapped: %w", ErrStop) }); err != nil {
		t.Fatalf("wrapped ErrStop: %v", err)
	}
}

func TestWalkMissingAndBrokenDataDir(t *testing.T) {
	called := false
	if err := Walk(filepath.Join(t.TempDir(), "nope"), "", func(Entry) error { called = true; return nil }); err != nil || called {
		t.Fatalf("missing data dir: err=%v called=%v", err, called)
	}
	c := t.TempDir()
	os.WriteFile(c+"/data", nil, 0o666) // data is a file
	if err := Walk(c, "", func(Entry) error { return nil }); err == nil {
		t.Fatal("data as a file: want error")
	}
}

func TestWalkDuplicateKeyPrefersOwnBucket(t *testing.T) {
	c := t.TempDir()
	for _, d := range []string{"data/00", "data/ab", "data/zz"} {
		os.MkdirAll(c+"/"+d, 0o777)
		os.WriteFile(c+"/"+d+"/"+idLowAB+".jsonc", nil, 0o666)
	}
	_, paths := walkIDs(t, c, "")
	if len(paths) != 1 || paths[0] != c+"/data/ab/"+idLowAB+".jsonc" {
		t.Fatalf("got %v", paths)
	}
	os.Remove(c + "/data/ab/" + idLowAB + ".jsonc")
	_, paths = walkIDs(t, c, "")
	if len(paths) != 1 || paths[0] != c+"/data/00/"+idLowAB+".jsonc" {
		t.Fatalf("without own bucket: got %v", paths)
	}
}

// Symlinks are never followed (README.md, "Consistency with live PHP writers"; PHP follows symlinked files):
// a symlinked record or bucket is not listed, a symlinked data/ or
// collection fails the walk and the listing with ELOOP.
func TestWalkSymlinks(t *testing.T) {
	c, other := t.TempDir(), t.TempDir()
	os.MkdirAll(c+"/data/ab", 0o777)
	os.WriteFile(c+"/data/ab/"+idLowAB+".jsonc", nil, 0o666)
	os.MkdirAll(other+"/data/2d", 0o777)
	os.WriteFile(other+"/data/2d/"+id2d+".jsonc", nil, 0o666)
	os.Symlink(other+"/data/2d", c+"/data/2d")                                    // symlinked bucket
	os.Symlink(other+"/data/2d/"+id2d+".jsonc", c+"/data/ab/"+idMixed+".jsonc")   // symlinked record
	os.Symlink(other+"/missing.jsonc", c+"/data/ab/"+idLowAB[:30]+"ffffff.jsonc") // dangling
	ids, _ := walkIDs(t, c, "")
	if fmt.Sprint(ids) != fmt.Sprint([]string{idLowAB}) {
		t.Fatalf("got %v", ids)
	}
	if l, _, err := ListIDs(c, nil, time.Now()); err != nil || fmt.Sprint(l.IDs) != fmt.Sprint([]string{idLowAB}) {
		t.Fatalf("ListIDs: %v, %v", l, err)
	}
	link := t.TempDir() + "/c"
	os.Symlink(other, link) // a symlinked collection
	c2 := t.TempDir()
	os.Symlink(other+"/data", c2+"/data") // a symlinked data/
	for _, dir := range []string{link, c2} {
		if err := Walk(dir, "", func(Entry) error { return nil }); !errors.Is(err, syscall.ELOOP) {
			t.Errorf("Walk(%s): %v, want ELOOP", dir, err)
		}
		if _, _, err := ListIDs(dir, nil, time.Now()); !errors.Is(err, syscall.ELOOP) {
			t.Errorf("ListIDs(%s): %v, want ELOOP", dir, err)
		}
	}
}

func BenchmarkWalk(b *testing.B) {
	c := b.TempDir()
	const n = 20000
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("018bcfe5-%04x-7000-8000-%02x%010x", i>>8, i%256, i)
		dir := BucketDir(c, id)
		if i < 256 {
			os.MkdirAll(dir, 0o777)
		}
		if err := os.WriteFile(dir+"/"+id+".jsonc", nil, 0o666); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		count := 0
		if err := Walk(c, "", func(Entry) error { count++; return nil }); err != nil {
			b.Fatal(err)
		}
		if count != n {
			b.Fatalf("walked %d", count)
		}
	}
}
