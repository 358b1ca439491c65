package fsutil

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

const deadPID = "2147483646"

// tree plants files (relative path -> age in seconds) below root.
func plant(t *testing.T, root string, now time.Time, files map[string]int) {
	t.Helper()
	for rel, age := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o666); err != nil {
			t.Fatal(err)
		}
		mt := now.Add(-time.Duration(age) * time.Second)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func TestSweepTemps(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	me := strconv.Itoa(os.Getpid())
	c := t.TempDir()
	plant(t, c, now, map[string]int{
		"data/ab/.2147483646.deadbeef.1.tmp":                 0,    // dead pid: deleted at any age
		"data/ab/." + me + ".0badf00d.12.tmp":                9999, // live pid: kept at any age
		"data/ab/.0." + "abc.1.tmp":                          0,    // pid 0 is never alive
		"data/ab/.99999999999999999999999.a.1.tmp":           0,    // saturated pid: dead
		"data/ab/.2147483646.DEADBEEF.1.tmp":                 59,   // uppercase hex: not the pattern, young
		"data/ab/.2147483646.DEADBEEF.2.tmp":                 60,   // ... old
		"data/ab/.x.jsonc.aaaaaaaaaaaa.tmp":                  59,   // atomic temp, young: kept
		"data/ab/.y.jsonc.aaaaaaaaaaaa.tmp":                  60,   // atomic temp, 60 s: deleted
		"data/ab/.p0123456789abcdef.deadbeef.1.tmp":          61,   // fallback identity: age rule
		".storh/indexes/entries/eq/66/.k.tmp":                3600, // deep, old
		"data/ab/not-hidden.tmp":                             9999, // no leading dot: never touched
		"data/ab/.hidden-not-tmp":                            9999, // no .tmp suffix: never touched
		"data/ab/018faf47-e2b8-76d6-9968-abdf939df0d3.jsonc": 9999,
		"outside/.2147483646.deadbeef.1.tmp":                 0, // only reachable via symlink below
	})
	// A directory named like a temp is not a file: kept.
	os.MkdirAll(c+"/data/ab/.2147483646.deadbeef.9.tmp", 0o777)
	// A symlinked directory is not followed.
	os.Symlink(c+"/outside", c+"/data/link")

	DetectHosts.SweepTemps(c, now)

	want := map[string]bool{
		"data/ab/.2147483646.deadbeef.1.tmp":                 false,
		"data/ab/." + me + ".0badf00d.12.tmp":                true,
		"data/ab/.0.abc.1.tmp":                               false,
		"data/ab/.99999999999999999999999.a.1.tmp":           false,
		"data/ab/.2147483646.DEADBEEF.1.tmp":                 true,
		"data/ab/.2147483646.DEADBEEF.2.tmp":                 false,
		"data/ab/.x.jsonc.aaaaaaaaaaaa.tmp":                  true,
		"data/ab/.y.jsonc.aaaaaaaaaaaa.tmp":                  false,
		"data/ab/.p0123456789abcdef.deadbeef.1.tmp":          false,
		".storh/indexes/entries/eq/66/.k.tmp":                false,
		"data/ab/not-hidden.tmp":                             true,
		"data/ab/.hidden-not-tmp":                            true,
		"data/ab/018faf47-e2b8-76d6-9968-abdf939df0d3.jsonc": true,
		"outside/.2147483646.deadbeef.1.tmp":                 false, // swept directly (it is inside C)
		"data/ab/.2147483646.deadbeef.9.tmp":                 true,
		"data/link":                                          true,
	}
	for rel, keep := range want {
		if got := exists(filepath.Join(c, rel)); got != keep {
			t.Errorf("%s: exists=%v, want %v", rel, got, keep)
		}
	}
}

func TestSweepDoesNotFollowSymlinkedDir(t *testing.T) {
	now := time.Now()
	c, other := t.TempDir(), t.TempDir()
	plant(t, other, now, map[string]int{".2147483646.deadbeef.1.tmp": 0, ".old.tmp": 3600})
	os.MkdirAll(c+"/data", 0o777)
	os.Symlink(other, c+"/data/ab")
	DetectHosts.SweepTemps(c, now)
	for _, name := range []string{".2147483646.deadbeef.1.tmp", ".old.tmp"} {
		if !exists(filepath.Join(other, name)) {
			t.Errorf("%s behind a symlinked dir was deleted", name)
		}
	}
}

func TestSweepOnOpen(t *testing.T) {
	now := time.Now()
	me := strconv.Itoa(os.Getpid())
	deadTemp := "data/ab/." + deadPID + ".deadbeef.1.tmp"

	t.Run("no writers dir: sweep then create it", func(t *testing.T) {
		c := t.TempDir()
		plant(t, c, now, map[string]int{deadTemp: 0})
		if err := SweepOnOpen(c, now); err != nil {
			t.Fatal(err)
		}
		if exists(c+"/"+deadTemp) || !exists(c+"/.storh/writers") {
			t.Fatal("want temp swept and writers/ created")
		}
	})
	t.Run("only live markers: no sweep", func(t *testing.T) {
		c := t.TempDir()
		plant(t, c, now, map[string]int{deadTemp: 0, ".storh/writers/" + me + ".abcdef01": 0})
		if err := SweepOnOpen(c, now); err != nil {
			t.Fatal(err)
		}
		if !exists(c+"/"+deadTemp) || !exists(c+"/.storh/writers/"+me+".abcdef01") {
			t.Fatal("nothing may change without a stale marker")
		}
	})
	t.Run("empty writers dir: no sweep", func(t *testing.T) {
		c := t.TempDir()
		plant(t, c, now, map[string]int{deadTemp: 0})
		os.MkdirAll(c+"/.storh/writers", 0o777)
		SweepOnOpen(c, now)
		if !exists(c + "/" + deadTemp) {
			t.Fatal("nothing may change without a stale marker")
		}
	})
	t.Run("stale markers: sweep, unlink stale, keep live", func(t *testing.T) {
		c := t.TempDir()
		plant(t, c, now, map[string]int{
			deadTemp: 0,
			".storh/writers/" + deadPID + ".deadbeef":   0,
			".storh/writers/not-a-pid":                  0,
			".storh/writers/.DS_Store":                  0,
			".storh/writers/p3fa9012345678901.1234abcd": 0,
			".storh/writers/" + me + ".abcdef01":        0,
			".storh/writers/" + me:                      0, // no dot after the digits: stale
		})
		if err := SweepOnOpen(c, now); err != nil {
			t.Fatal(err)
		}
		if exists(c + "/" + deadTemp) {
			t.Fatal("temp not swept")
		}
		entries, _ := os.ReadDir(c + "/.storh/writers")
		if len(entries) != 1 || entries[0].Name() != me+".abcdef01" {
			t.Fatalf("writers left: %v", entries)
		}
	})
	t.Run("stale subdirectory marker stays and sweeps every open", func(t *testing.T) {
		c := t.TempDir()
		os.MkdirAll(c+"/.storh/writers/stale-dir", 0o777) // empty: unlink(2) still refuses it
		for i := 0; i < 2; i++ {
			plant(t, c, now, map[string]int{deadTemp: 0})
			if err := SweepOnOpen(c, now); err != nil {
				t.Fatal(err)
			}
			if exists(c + "/" + deadTemp) {
				t.Fatalf("open %d: temp not swept", i)
			}
			if !exists(c + "/.storh/writers/stale-dir") {
				t.Fatalf("open %d: subdirectory was removed", i)
			}
		}
	})
	t.Run("writers is a file: mkdir error", func(t *testing.T) {
		c := t.TempDir()
		plant(t, c, now, map[string]int{".storh/writers": 0})
		err := SweepOnOpen(c, now)
		if err == nil || err.Error() != "Could not create storage directory: "+c+"/.storh/writers" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("missing collection: created", func(t *testing.T) {
		c := filepath.Join(t.TempDir(), "new", "coll")
		if err := SweepOnOpen(c, now); err != nil || !exists(c+"/.storh/writers") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestPIDAlive(t *testing.T) {
	cases := []struct {
		pid  int64
		want bool
	}{
		{int64(os.Getpid()), true},
		{1, true}, // init: alive (EPERM also counts as alive for a non-root user)
		{0, false},
		{-1, false},
		{2147483646, false},
		{0x80000000, false},
		{1 << 62, false},
	}
	for _, c := range cases {
		if got := PIDAlive(c.pid); got != c.want {
			t.Errorf("PIDAlive(%d) = %v, want %v", c.pid, got, c.want)
		}
	}
}

func TestParsePIDAndPattern(t *testing.T) {
	pids := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"123", 123, true}, {"007", 7, true}, {"", 0, false}, {"12a", 0, false},
		{"-1", 0, false}, {"99999999999999999999", 1<<63 - 1, true},
		{"\u0661", 0, false}, // Arabic-Indic digit: \d without /u is ASCII only
	}
	for _, c := range pids {
		got, ok := parsePID(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parsePID(%q) = %d, %v", c.in, got, ok)
		}
	}
	names := []struct {
		in string
		ok bool
	}{
		{".28456.16cd98b2.1.tmp", true},
		{".1.a.1.tmp", true},
		{".28456.16CD98B2.1.tmp", false},
		{".28456.16cd98b2.tmp", false},
		{".28456..1.tmp", false},
		{"..16cd98b2.1.tmp", false},
		{".28456.16cd98b2.1.x.tmp", false},
		{".28456.16cd98b2.1a.tmp", false},
		{"28456.16cd98b2.1.tmp", false},
		{".28456.16cd98b2.1.tmp\n", false},
		{".tmp", false},
	}
	for _, c := range names {
		if _, ok := pidOfTemp(c.in); ok != c.ok {
			t.Errorf("pidOfTemp(%q) = %v", c.in, ok)
		}
	}
}
