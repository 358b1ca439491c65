package seglog

import (
	"testing"

	"github.com/storhfs/storhfs/internal/conformance"
	"github.com/storhfs/storhfs/internal/difftest"
)

// TestDifferential replays random log op sequences with the real PHP
// storh and with this package, comparing every result and the final tree
// (internal/difftest; make difftest runs many more).
func TestDifferential(t *testing.T) {
	difftest.Run(t, "log", 90, newLogExecutor, conformance.Options{AllowQuirks: []string{difftest.QuirkLogCountSubstring, difftest.QuirkLogCountState}})
}
