package difftest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/internal/conformance"
	"github.com/storhfs/storhfs/internal/corpus"
)

// generators are the sequence generators per engine: seed and a target
// length in, op lines out.
var generators = map[string]func(seed uint64, n int) []string{
	"doc":   Doc,
	"log":   Log,
	"queue": Queue,
}

// packages name the engine packages, for the reproduction hints.
var packages = map[string]string{"doc": "./core/docstore", "log": "./core/seglog", "queue": "./core/queue"}

// Run replays seqs generated sequences of engine (STORH_DIFF_SEQS
// overrides the count) with PHP and with newExec, one parallel subtest
// s<seed> each. A divergence fails that subtest with the op index and
// both results (internal/conformance reports them) and keeps the case
// directory for reproduction. Without php or the oracle the test skips
// (fails in CI).
func Run(t *testing.T, engine string, seqs int, newExec func(root string) conformance.Executor, opts conformance.Options) {
	t.Helper()
	orc, why := findOracle()
	if orc == nil {
		corpus.Missing(t, why)
		return
	}
	seqs = envInt(t, "STORH_DIFF_SEQS", seqs)
	first := uint64(envInt(t, "STORH_DIFF_SEED", 1))
	keep := os.Getenv("STORH_DIFF_KEEP")
	if keep == "" {
		keep = filepath.Join(os.TempDir(), "storhfs-difftest")
	}
	generate := generators[engine]
	for i := range seqs {
		seed := first + uint64(i)
		name := fmt.Sprintf("s%d", seed)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			ops := generate(seed, opsFor(seed))
			opsPath := filepath.Join(work, "ops.jsonl")
			if err := os.WriteFile(opsPath, []byte(strings.Join(ops, "\n")+"\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(work, "out")
			if err := orc.replayOps(out, engine, name, opsPath); err != nil {
				t.Fatalf("seed %d: PHP could not replay the generated ops (a generator bug): %v", seed, err)
			}
			caseDir := filepath.Join(out, engine, name)
			t.Cleanup(func() {
				if t.Failed() {
					keepCase(t, engine, seed, caseDir, filepath.Join(keep, engine, name))
				}
			})
			conformance.RunCase(t, caseDir, newExec, opts)
		})
	}
}

// opsFor is the target length of the sequence of seed: 20 to 60 ops.
func opsFor(seed uint64) int { return 20 + int(seed*7919%41) }

// keepCase copies a diverging case to dst and says how to reproduce it.
func keepCase(t *testing.T, engine string, seed uint64, src, dst string) {
	if err := os.RemoveAll(dst); err == nil {
		err = os.CopyFS(dst, os.DirFS(src))
	}
	if _, err := os.Stat(filepath.Join(dst, "case.json")); err != nil {
		t.Logf("seed %d diverged; the case could not be kept at %s: %v", seed, dst, err)
		return
	}
	corpusDir := filepath.Dir(filepath.Dir(dst))
	t.Logf("seed %d diverged from PHP; case kept at %s\n  replay it:   STORH_CONFORMANCE_DIR=%s go test %s -run 'TestConformance/%s/s%d'\n  regenerate:  STORH_DIFF_SEED=%d STORH_DIFF_SEQS=1 go test %s -run TestDifferential",
		seed, dst, corpusDir, packages[engine], engine, seed, seed, packages[engine])
}

// envInt reads a positive integer from the environment, def when unset.
func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a non-negative integer", name, s)
	}
	return n
}
