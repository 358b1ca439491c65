package shard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestWalkIDsMatchesWalk(t *testing.T) {
	c := fixture(t)
	for _, after := range []string{"", id2d, "zzz"} {
		want, _ := walkIDs(t, c, after)
		var got []string
		if err := WalkIDs(c, after, func(id string) error { got = append(got, id); return nil }); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("after %q: WalkIDs %v, Walk %v", after, got, want)
		}
	}
}

func TestListIDsReusesOnlyUnchangedDirs(t *testing.T) {
	c := fixture(t)
	want, _ := walkIDs(t, c, "")
	old := time.Now().Add(-time.Hour)
	ageDirs(t, c, old)

	// Listed after the racy window: ageDirs just moved every ctime to now.
	now := time.Now().Add(racyWindow + time.Second)
	first, changed, err := ListIDs(c, nil, now)
	if err != nil || !changed {
		t.Fatalf("first list: changed %v, err %v", changed, err)
	}
	if fmt.Sprint(first.IDs) != fmt.Sprint(want) {
		t.Fatalf("ids\n got %v\nwant %v", first.IDs, want)
	}
	again, changed, err := ListIDs(c, first, now)
	if err != nil || changed || again != first {
		t.Fatalf("unchanged collection: changed %v, same list %v, err %v", changed, again == first, err)
	}

	// A record added in an existing bucket, a new bucket, a removed record.
	newID := "018bcfe5-6800-7000-8000-2d0000000009"
	write(t, c, "data/2d/"+newID+".jsonc")
	newBucket := "018bcfe5-6800-7000-8000-770000000001"
	write(t, c, "data/77/"+newBucket+".jsonc")
	if err := os.Remove(filepath.Join(c, "data/AB", idUpAB+".jsonc")); err != nil {
		t.Fatal(err)
	}
	want, _ = walkIDs(t, c, "")
	third, changed, err := ListIDs(c, again, time.Now())
	if err != nil || !changed {
		t.Fatalf("after changes: changed %v, err %v", changed, err)
	}
	if fmt.Sprint(third.IDs) != fmt.Sprint(want) {
		t.Fatalf("ids after changes\n got %v\nwant %v", third.IDs, want)
	}
}

// A tool that restores a bucket's mtime after adding a record (rsync -a,
// cp -a, tar x) cannot restore its ctime, so the bucket is read again.
func TestListIDsRestoredMtimeIsReread(t *testing.T) {
	c := fixture(t)
	ageDirs(t, c, time.Now().Add(-time.Hour))
	later := time.Now().Add(racyWindow + time.Second)
	first, _, err := ListIDs(c, nil, later)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c, "data/2d")
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	newID := "018bcfe5-6800-7000-8000-2d0000000007"
	write(t, c, "data/2d/"+newID+".jsonc")
	if err := os.Chtimes(dir, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	second, changed, err := ListIDs(c, first, later.Add(racyWindow+time.Second))
	if err != nil || !changed || !slices.Contains(second.IDs, newID) {
		t.Fatalf("bucket with a restored mtime not re-read: changed %v, err %v", changed, err)
	}
}

// A directory whose mtime is recent when read is read again next time,
// even when its mtime did not move (a change in the same clock tick).
func TestListIDsRacyDirIsReread(t *testing.T) {
	c := fixture(t)
	first, _, err := ListIDs(c, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c, "data/2d")
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	newID := "018bcfe5-6800-7000-8000-2d0000000008"
	write(t, c, "data/2d/"+newID+".jsonc")
	if err := os.Chtimes(dir, fi.ModTime(), fi.ModTime()); err != nil { // same tick
		t.Fatal(err)
	}
	second, changed, err := ListIDs(c, first, time.Now())
	if err != nil || !changed {
		t.Fatalf("racy dir not re-read: changed %v, err %v", changed, err)
	}
	found := false
	for _, id := range second.IDs {
		found = found || id == newID
	}
	if !found {
		t.Fatalf("%s missing from %v", newID, second.IDs)
	}
}

func TestListIDsMissingData(t *testing.T) {
	c := t.TempDir()
	l, _, err := ListIDs(c, nil, time.Now())
	if err != nil || l.Len() != 0 {
		t.Fatalf("missing data/: %v, %v", l.IDs, err)
	}
	write(t, c, "data/ab/"+idLowAB+".jsonc")
	l2, changed, err := ListIDs(c, l, time.Now())
	if err != nil || !changed || l2.Len() != 1 {
		t.Fatalf("data/ created: changed %v, %v, %v", changed, l2.IDs, err)
	}
}

func write(t *testing.T, c, rel string) {
	t.Helper()
	p := filepath.Join(c, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{}"), 0o666); err != nil {
		t.Fatal(err)
	}
}

func ageDirs(t *testing.T, c string, at time.Time) {
	t.Helper()
	err := filepath.Walk(filepath.Join(c, "data"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			err = os.Chtimes(p, at, at)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
