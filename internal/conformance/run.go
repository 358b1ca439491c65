package conformance

import (
	"path/filepath"
	"slices"
	"testing"

	corpusdir "github.com/storhfs/storhfs/internal/corpus"
)

// Run runs every case of <corpus>/<engine>/ as t.Run(caseName): builds the
// before/ tree in a fresh storage root, replays ops.jsonl (fs_* ops are
// run by the harness, everything else by the Executor), compares every
// normalised, PHP-encoded result with results.jsonl byte for byte, then
// compares the final tree with case.json's expected listing.
func Run(t *testing.T, engine string, newExec func(root string) Executor, opts Options) {
	t.Helper()
	corpus := corpusdir.Require(t)
	RunCases(t, filepath.Join(corpus, engine), newExec, opts)
}

// RunCases runs every case directory of engineDir as t.Run(caseName), as
// Run does for <corpus>/<engine> (also for the repository's extra cases,
// testdata/conformance-extra/<engine>).
func RunCases(t *testing.T, engineDir string, newExec func(root string) Executor, opts Options) {
	t.Helper()
	names, err := listCases(engineDir)
	if err != nil || len(names) == 0 {
		t.Fatalf("no cases in %s: %v", engineDir, err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			RunCase(t, filepath.Join(engineDir, name), newExec, opts)
		})
	}
}

// RunCase replays the one case in dir (a <corpus>/<engine>/<case>
// directory, such as a differential run writes) in t, as Run does for
// each case of a corpus.
func RunCase(t *testing.T, dir string, newExec func(root string) Executor, opts Options) {
	t.Helper()
	c, err := loadCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	runCase(t, c, newExec, opts)
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
