package conformance

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Run runs every case of <corpus>/<engine>/ as t.Run(caseName): builds the
// before/ tree in a fresh storage root, replays ops.jsonl (fs_* ops are
// run by the harness, everything else by the Executor), compares every
// normalised, PHP-encoded result with results.jsonl byte for byte, then
// compares the final tree with case.json's expected listing.
func Run(t *testing.T, engine string, newExec func(root string) Executor, opts Options) {
	t.Helper()
	corpus, ok := CorpusDir()
	if !ok {
		t.Skipf("conformance corpus not found at %s (set STORH_CONFORMANCE_DIR)", corpus)
	}
	engineDir := filepath.Join(corpus, engine)
	names, err := listCases(engineDir)
	if err != nil || len(names) == 0 {
		t.Fatalf("no %s cases in %s: %v", engine, engineDir, err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			c, err := loadCase(filepath.Join(engineDir, name))
			if err != nil {
				t.Fatal(err)
			}
			runCase(t, c, newExec, opts)
		})
	}
}

// CorpusDir returns $STORH_CONFORMANCE_DIR, or <dir containing go.mod>/../shared/conformance,
// and whether that directory exists.
func CorpusDir() (string, bool) {
	dir := os.Getenv("STORH_CONFORMANCE_DIR")
	if dir == "" {
		dir = defaultCorpusDir()
	}
	fi, err := os.Stat(dir)
	return dir, err == nil && fi.IsDir()
}

func (o Options) quirkAllowed(tag string) bool {
	return tag != "" && slices.Contains(o.AllowQuirks, tag)
}

func (o Options) maxMismatches() int {
	if o.MaxMismatches > 0 {
		return o.MaxMismatches
	}
	return 20
}
