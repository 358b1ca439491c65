package docstore

import (
	"testing"

	"github.com/storhfs/storhfs/internal/conformance"
	"github.com/storhfs/storhfs/internal/difftest"
)

// TestDifferential replays random doc op sequences with the real PHP
// storh and with this package, comparing every result and the final tree
// (internal/difftest; make difftest runs many more).
func TestDifferential(t *testing.T) {
	difftest.Run(t, "doc", 120, newDocExecutor, conformance.Options{
		AllowQuirks: append([]string{difftest.QuirkStreamIDWindow, difftest.QuirkCountFiles}, allowedQuirks...),
	})
}
