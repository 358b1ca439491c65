package fsutil

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

// Under the write lock every index temp without a live owner is an orphan,
// however young: the ones SweepTemps spares for 60 s go too.
func TestSweepIndexTemps(t *testing.T) {
	now := time.Now()
	me := strconv.Itoa(os.Getpid())
	c := t.TempDir()
	const eq = ".storh/indexes/entries/eq/6b696e64/"
	plant(t, c, now, map[string]int{
		eq + ".s-70616765.jsonc.0123456789ab.tmp":                 0, // PHP/storhfs atomic temp, 0 s old
		".storh/indexes/.manifest.jsonc.0123456789ab.tmp":         1,
		".storh/indexes/entries/range/.6e.jsonl.aaaaaaaaaaaa.tmp": 0,
		".storh/indexes/entries/range/.chunks/.6e-0.jsonl.a.tmp":  0,
		eq + "." + deadPID + ".deadbeef.1.tmp":                    0, // PID temp of a dead writer
		eq + "." + me + ".0badf00d.3.tmp":                         0, // PID temp of a live writer: kept
		eq + "s-70616765.jsonc":                                   0, // an entry: never touched
		eq + ".hidden-not-tmp":                                    0,
		"data/ab/.x.jsonc.0123456789ab.tmp":                       0, // outside indexes/: not this sweep's
		"outside/.y.jsonc.0123456789ab.tmp":                       0,
	})
	os.Symlink(c+"/outside", c+"/.storh/indexes/entries/link") // not followed
	os.Symlink(c+"/outside/.y.jsonc.0123456789ab.tmp", c+"/"+eq+".link.tmp")

	removed := DetectHosts.SweepIndexTemps(c)

	want := map[string]bool{
		eq + ".s-70616765.jsonc.0123456789ab.tmp":                 false,
		".storh/indexes/.manifest.jsonc.0123456789ab.tmp":         false,
		".storh/indexes/entries/range/.6e.jsonl.aaaaaaaaaaaa.tmp": false,
		".storh/indexes/entries/range/.chunks/.6e-0.jsonl.a.tmp":  false,
		eq + "." + deadPID + ".deadbeef.1.tmp":                    false,
		eq + "." + me + ".0badf00d.3.tmp":                         true,
		eq + "s-70616765.jsonc":                                   true,
		eq + ".hidden-not-tmp":                                    true,
		eq + ".link.tmp":                                          true,
		"data/ab/.x.jsonc.0123456789ab.tmp":                       true,
		"outside/.y.jsonc.0123456789ab.tmp":                       true,
	}
	for rel, keep := range want {
		if got := exists(filepath.Join(c, rel)); got != keep {
			t.Errorf("%s: exists=%v, want %v", rel, got, keep)
		}
	}
	if len(removed) != 5 {
		sort.Strings(removed)
		t.Errorf("removed %d files, want 5: %v", len(removed), removed)
	}
}

func TestSweepIndexTempsNoIndexes(t *testing.T) {
	if removed := DetectHosts.SweepIndexTemps(t.TempDir()); len(removed) != 0 {
		t.Fatalf("removed %v", removed)
	}
}

func TestSweepOnOpenStaleReportsDeadMarkers(t *testing.T) {
	now := time.Now()
	me := strconv.Itoa(os.Getpid())
	c := t.TempDir()
	plant(t, c, now, map[string]int{
		".storh/writers/" + deadPID + ".deadbeef": 0,
		".storh/writers/" + me + ".abcdef01":      0,
	})
	stale, err := DetectHosts.SweepOnOpenStale(c, now)
	if err != nil || len(stale) != 1 || stale[0] != deadPID+".deadbeef" {
		t.Fatalf("stale = %v, %v", stale, err)
	}
	if stale, err := DetectHosts.SweepOnOpenStale(c, now); err != nil || stale != nil {
		t.Fatalf("second open: stale = %v, %v", stale, err)
	}
}
