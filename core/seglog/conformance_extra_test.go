package seglog

import (
	"path/filepath"
	"testing"

	"github.com/storhfs/storhfs/internal/conformance"
	"github.com/storhfs/storhfs/internal/corpus"
)

// TestConformanceExtra replays testdata/conformance-extra/log: PHP cases
// made from divergences the differential test found (internal/difftest).
func TestConformanceExtra(t *testing.T) {
	dir := filepath.Join(corpus.ModuleRoot(), "testdata", "conformance-extra", "log")
	conformance.RunCases(t, dir, newLogExecutor, conformance.Options{})
}
