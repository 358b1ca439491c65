package corpus

import (
	"path/filepath"
	"testing"
)

func TestDirIsTheRepositorysCorpus(t *testing.T) {
	t.Setenv(EnvDir, "")
	dir, ok := Dir()
	if !ok || dir != filepath.Join(ModuleRoot(), "testdata", "conformance") {
		t.Fatalf("Dir() = %q, %v; want the repository's testdata/conformance", dir, ok)
	}
}

func TestEnvOverridesAndMissingIsReported(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	t.Setenv(EnvDir, missing)
	if dir, ok := Dir(); ok || dir != missing {
		t.Fatalf("Dir() = %q, %v; want %q, false", dir, ok, missing)
	}
}
