package conformance

import (
	"os"
	"path/filepath"
)

// defaultCorpusDir walks up from the working directory to the directory
// holding go.mod and returns <that>/../shared/conformance.
func defaultCorpusDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "../shared/conformance"
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "..", "shared", "conformance")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, "..", "shared", "conformance")
		}
	}
}
