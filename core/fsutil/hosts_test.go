package fsutil

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A writer on another host has a pid that is not alive here: with
// ManyHosts its young temp files and its marker survive every sweep
// (OneHost, storh's rule, deletes them: the bug on a shared root).
func TestSweepManyHostsSparesOtherHostsWriters(t *testing.T) {
	now := time.Now()
	otherHost := deadPID + ".deadbeef" // alive on its own host
	for _, tc := range []struct {
		hosts Hosts
		kept  bool
	}{{ManyHosts, true}, {OneHost, false}} {
		t.Run(tc.hosts.String(), func(t *testing.T) {
			c := t.TempDir()
			plant(t, c, now, map[string]int{
				".storh/writers/" + otherHost:                     0,
				"data/ab/." + otherHost + ".7.tmp":                5,    // mid-write on the other host
				".storh/indexes/entries/." + otherHost + ".1.tmp": 5,    // PID-owned index temp
				"data/cd/." + otherHost + ".8.tmp":                7200, // older than sharedTempGrace
				".storh/indexes/entries/." + otherHost + ".2.tmp": 7200,
				"data/ab/.p0123456789abcdef.3.tmp":                5, // a ManyHosts writer's temp
			})
			stale, err := tc.hosts.SweepOnOpenStale(c, now)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(stale) == 0; got != tc.kept {
				t.Errorf("stale markers %v; want none: %v", stale, tc.kept)
			}
			tc.hosts.SweepTemps(c, now) // as repair does, and a malformed marker triggers
			tc.hosts.SweepIndexTemps(c)
			for rel, keep := range map[string]bool{
				".storh/writers/" + otherHost:                     tc.kept,
				"data/ab/." + otherHost + ".7.tmp":                tc.kept,
				".storh/indexes/entries/." + otherHost + ".1.tmp": tc.kept,
				"data/cd/." + otherHost + ".8.tmp":                false,
				".storh/indexes/entries/." + otherHost + ".2.tmp": false,
				"data/ab/.p0123456789abcdef.3.tmp":                true,
			} {
				if got := exists(filepath.Join(c, rel)); got != keep {
					t.Errorf("%s: exists = %v, want %v", rel, got, keep)
				}
			}
		})
	}
}

// A ManyHosts writer names its temps without a pid, so that storh's sweep
// on another host, judging our pid dead there, keeps them for 60 s.
func TestWriterForManyHostsNamesTempsWithoutPID(t *testing.T) {
	dir := t.TempDir()
	w := NewWriterFor(dir, ManyHosts)
	name := filepath.Base(w.TempPath(dir))
	if _, ok := pidOfTemp(name); ok || !strings.HasPrefix(name, ".p") || !strings.HasSuffix(name, ".1.tmp") {
		t.Errorf("temp %q: want .p<hex16>.<n>.tmp, no pid", name)
	}
	if !strings.HasPrefix(w.Name(), strconv.Itoa(os.Getpid())+".") {
		t.Errorf("marker name %q: want <pid>.<hex8>", w.Name())
	}
	if one := filepath.Base(NewWriterFor(dir, DetectHosts).TempPath(dir)); !strings.HasPrefix(one, "."+strconv.Itoa(os.Getpid())+".") {
		t.Errorf("a local directory's temp %q: want .<pid>.<hex8>.<n>.tmp", one)
	}
}

func TestSharedFSLocalDir(t *testing.T) {
	if SharedFS(t.TempDir()) || DetectHosts.For(t.TempDir()) != OneHost {
		t.Skip("the test's temp directory is on a shared file system") // nothing to learn here
	}
}
