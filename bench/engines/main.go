// Command engines measures the storage engines (core/docstore, core/seglog,
// core/queue) against the PHP storh library they replace, side by side on
// the same machine in one run: for each engine it alternates one pass of
// the PHP script in bench/php (PHP, Go, PHP, Go, ...) with one run of the
// package's Go benchmarks, for a number of rounds; the fsync-bound single
// operations it measures interleaved instead, in bursts alternating between
// one PHP process and this one (interleave.go). It prints a Markdown table
// of medians (range in brackets) with the ratio ours/PHP. It exits 1
// when a row's median ratio is above 1: ours slower than PHP. It is not
// part of the storhfs binary.
//
//	eval "$(../shared/oracle/setup.sh)"   # STORH_AUTOLOAD, php-cli
//	go run ./bench/engines [--rounds 3 | --quick] [--bursts 100] [--burst 10] [--engines docstore,seglog,queue] [--scratch DIR]
//
// Run it from the module root (make bench-engines does).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	rounds := flag.Int("rounds", 3, "rounds; each runs PHP then Go once per engine")
	bursts := flag.Int("bursts", 100, "burst pairs per interleaved (fsync-bound) row")
	burst := flag.Int("burst", 10, "operations per burst of an interleaved row")
	quick := flag.Bool("quick", false, "1 round and 10 burst pairs (a smoke check, not for BENCHMARKS.md)")
	only := flag.String("engines", "docstore,seglog,queue", "engines to run, comma-separated")
	scratch := flag.String("scratch", os.TempDir(), "where both sides write their collections (the same file system for both)")
	flag.Parse()
	if *quick {
		*rounds, *bursts = 1, 10
	}
	if *bursts < 1 || *burst < 1 || *bursts**burst > 20000 {
		fmt.Fprintln(os.Stderr, "bench-engines: --bursts and --burst must be positive, their product at most 20000 (the queue's jobs)")
		os.Exit(2)
	}
	il := interleaving{bursts: *bursts, burst: *burst}
	if err := benchmark(*rounds, il, strings.Split(*only, ","), *scratch); err != nil {
		fmt.Fprintln(os.Stderr, "bench-engines:", err)
		os.Exit(2)
	}
}

// interleaving is the shape of the interleaved rows' measurement.
type interleaving struct {
	bursts int // burst pairs per row
	burst  int // operations per burst and side
}

func benchmark(rounds int, il interleaving, names []string, scratch string) error {
	if os.Getenv("STORH_AUTOLOAD") == "" {
		return fmt.Errorf(`STORH_AUTOLOAD is not set: run eval "$(../shared/oracle/setup.sh)" first`)
	}
	var selected []engine
	for _, e := range engines {
		if slices.Contains(names, e.name) {
			if _, err := os.Stat(e.script); err != nil {
				return fmt.Errorf("%w (run from the module root)", err)
			}
			selected = append(selected, e)
		}
	}
	if len(selected) == 0 {
		return fmt.Errorf("no engine in %q", names)
	}
	bins, err := os.MkdirTemp("", "bench-engines-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bins)

	rep := report{rounds: rounds, interleaving: il, start: time.Now(), loadStart: loadavg()}
	for _, e := range selected {
		testBin := filepath.Join(bins, e.name+".test")
		if _, err := command("go", "test", "-c", "-o", testBin, e.pkg); err != nil {
			return fmt.Errorf("building %s: %w", e.pkg, err)
		}
		testBin, _ = filepath.Abs(testBin)
		res := newResult(e)
		for r := 1; r <= rounds; r++ {
			t0 := time.Now()
			php, err := runPHP(e, scratch)
			if err != nil {
				return err
			}
			t1 := time.Now()
			ours, err := runGo(e, testBin, scratch)
			if err != nil {
				return err
			}
			if err := res.add(php, ours); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "%s round %d/%d: PHP %.0fs, Go %.0fs, load %s\n\tPHP %v\n\tGo  %v\n", e.name, r, rounds,
				t1.Sub(t0).Seconds(), time.Since(t1).Seconds(), loadavg(), php, ours)
		}
		for _, fr := range e.fsyncRows {
			t0 := time.Now()
			p, err := interleave(e.name, fr, scratch, il.bursts, il.burst)
			if err != nil {
				return err
			}
			res.interleaved = append(res.interleaved, p)
			_, mid, _ := quartiles(p.ratios())
			fmt.Fprintf(os.Stderr, "%s %s interleaved: %d x %d ops per side in %.0fs, median ratio %.2f, load %s\n", e.name, fr.php,
				il.bursts, il.burst, time.Since(t0).Seconds(), mid, loadavg())
		}
		rep.results = append(rep.results, res)
	}
	rep.loadEnd = loadavg()
	rep.print(os.Stdout)
	if slower := rep.slower(); len(slower) > 0 {
		fmt.Fprintf(os.Stderr, "bench-engines: ours slower than PHP (median ratio > 1): %s\n", strings.Join(slower, "; "))
		os.Exit(1)
	}
	return nil
}

// loadavg is the 1, 5 and 15 minute load averages.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
