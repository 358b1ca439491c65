package queue

import (
	"testing"

	"github.com/storhfs/storhfs/internal/conformance"
	"github.com/storhfs/storhfs/internal/difftest"
)

// TestDifferential replays random queue op sequences with the real PHP
// storh and with this package, comparing every result and the final tree
// (internal/difftest; make difftest runs many more).
func TestDifferential(t *testing.T) {
	difftest.Run(t, "queue", 90, newQueueExecutor, conformance.Options{AllowQuirks: []string{difftest.QuirkDeepRefused}})
}
