package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/internal/corpus"
	"github.com/storhfs/storhfs/shard"
)

// The hidden views of issue 15 (README.md, "Index folders and the
// whole-collection file"), measured on a fresh mount:
//   - `grep -c` of COLL/.all.ndjson against native `grep -rc` over the
//     sharded data directory (goal: at most 0.5x);
//   - the mount's RSS while .all.ndjson is read, against its idle RSS
//     (goal: at most +32 MiB);
//   - `ls COLL/.by/color/ultraviolet/` (1% of the records) against PHP's
//     indexed where('color')->eq('ultraviolet'), timed inside PHP (goal:
//     at most 2x). The data set's color field holds the needle in 1% of
//     the records; its equality index is added once (viewIndexField).

// viewIndexField is the field given an equality index for the .by row.
const viewIndexField = "color"

var (
	allFileGoal = maxRatio(0.5)
	byIndexGoal = maxRatio(2)
)

// viewRSSLimit is the goal for the RSS growth while .all.ndjson is read.
const viewRSSLimit = 32 << 20

// ensureViewIndex defines and builds the equality index on
// viewIndexField unless the collection has it (no mount running).
func ensureViewIndex(d dataset) error {
	s, err := docstore.Open(d.root(), recordsCollection, docstore.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	if _, ok := s.Indexes().Definition(viewIndexField); ok {
		return nil
	}
	logf("indexing %s of %s (once; kept with the data set)", viewIndexField, d.pagesDir())
	return s.SyncIndexes([]docindex.Definition{{Field: viewIndexField}}, true)
}

// benchViews remounts, measures the view rows and prints them with the
// RSS growth.
func benchViews(r *runner, live *liveMount, bin string, d dataset, mountFlags []string) error {
	live.stop()
	if err := ensureViewIndex(d); err != nil {
		return fmt.Errorf("index %s: %w", viewIndexField, err)
	}
	if err := live.start(func() (*mountProc, error) { return startMount(bin, d.root(), d.mountpoint(), mountFlags) }); err != nil {
		return err
	}
	defer live.stop()
	coll := filepath.Join(d.mountpoint(), recordsCollection)
	if _, err := os.Stat(filepath.Join(coll, ".by")); err != nil {
		fmt.Println("views: not mounted yet")
		logf("views: %v", err)
		return nil
	}
	idle, err := live.rss()
	if err != nil {
		return err
	}
	grepRow, err := r.measure(op{
		name: "`grep -c " + needle + "` .all.ndjson vs `grep -rc` data/", goal: allFileGoal, dropCaches: true,
		native: tool([]string{"grep", "-rc", needle, shard.DataDir(d.pagesDir())}, "", countLines, ""),
		mount:  tool([]string{"grep", "-c", needle, filepath.Join(coll, ".all.ndjson")}, "", countLines, ""),
	})
	if err != nil {
		return err
	}
	peak, err := live.peakRSS()
	if err != nil {
		return err
	}
	rows := []row{grepRow}
	if php := phpEqSide(d); php != nil {
		byRow, err := r.measure(op{
			name: "`ls .by/" + viewIndexField + "/" + needle + "/` (1%) vs PHP where()->eq() [PHP in native]",
			goal: byIndexGoal, dropCaches: true, sameOutput: true,
			native: php,
			mount:  tool([]string{"ls", filepath.Join(coll, ".by", viewIndexField, needle)}, "", countSuffix, ".jsonc"),
		})
		if err != nil {
			return err
		}
		rows = append(rows, byRow)
	} else {
		fmt.Println("views: PHP storh not found (../shared/oracle): the .by row is not measured")
	}
	writeTable(os.Stdout, rows)
	fmt.Println()
	growth := peak - idle
	fmt.Printf("RSS of the mount while reading .all.ndjson: peak %.1f MiB, idle %.1f MiB, growth %.1f MiB (goal ≤ %d MiB: %s)\n",
		float64(peak)/(1<<20), float64(idle)/(1<<20), float64(growth)/(1<<20), viewRSSLimit>>20, yesNo(growth <= viewRSSLimit))
	return nil
}

// phpEqSide runs bench/php/eqquery.php on the data set and reports the
// query's own time (PHP's start-up excluded) and its record count; nil
// without PHP storh.
func phpEqSide(d dataset) side {
	oracle, why := corpus.FindOracle()
	if oracle == nil {
		logf("PHP storh: %s", why)
		return nil
	}
	script := filepath.Join(corpus.ModuleRoot(), "bench", "php", "eqquery.php")
	return func(int) (time.Duration, int64, error) {
		cmd := exec.Command("php", script, d.root(), recordsCollection, viewIndexField, needle)
		cmd.Env = oracle.Env()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return 0, 0, fmt.Errorf("php eqquery: %w: %s", err, firstLine(stderr.String()))
		}
		var res struct{ US, Count int64 }
		if err := json.Unmarshal(bytes.TrimSpace(out), &res); err != nil {
			return 0, 0, fmt.Errorf("php eqquery printed %q: %w", strings.TrimSpace(string(out)), err)
		}
		return time.Duration(res.US) * time.Microsecond, res.Count, nil
	}
}
