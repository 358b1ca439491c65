// Package corpus locates the golden PHP corpus (testdata/conformance, or
// $STORH_CONFORMANCE_DIR) and the PHP oracle beside the repository
// (../shared/oracle) for every test, so each is found one way only. It
// imports no engine, so any package's tests may use it.
package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvDir names a corpus to replay instead of the repository's own (a
// differential run's output, another corpus): same layout, same subtest
// names.
const EnvDir = "STORH_CONFORMANCE_DIR"

// Dir returns $STORH_CONFORMANCE_DIR, or <module root>/testdata/conformance,
// and whether that directory exists.
func Dir() (string, bool) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		dir = filepath.Join(ModuleRoot(), "testdata", "conformance")
	}
	fi, err := os.Stat(dir)
	return dir, err == nil && fi.IsDir()
}

// Require returns the corpus directory. A missing corpus skips the test,
// naming the path, except in CI (CI=true), where it fails: CI must never
// pass with the byte-compatibility proof skipped.
func Require(t testing.TB) string {
	t.Helper()
	dir, ok := Dir()
	if !ok {
		Missing(t, "conformance corpus not found at "+dir+" (set "+EnvDir+")")
	}
	return dir
}

// Missing skips t for a missing prerequisite, or fails it when CI=true.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (required in CI)", why)
	}
	t.Skip(why)
}

// ModuleRoot is the directory holding go.mod, found by walking up from the
// working directory (a test runs in its package's directory); the working
// directory itself when there is none.
func ModuleRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return wd
		}
	}
}
