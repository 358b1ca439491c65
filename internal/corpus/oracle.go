package corpus

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EnvOracle names another copy of the PHP oracle than the one beside the
// repository.
const EnvOracle = "STORH_ORACLE"

// Oracle is the real PHP storh beside the repository (../shared/oracle),
// run by differential, live co-operation and benchmark tests; never part
// of storhfs.
type Oracle struct {
	Dir      string // the oracle directory
	PHP      string // php-cli
	Autoload string // storh's autoloader: STORH_AUTOLOAD for a PHP client
	Bin      string // storh's own CLI (bin/storh)
	Replay   string // conformance/replay.php: ops file -> corpus case
}

// FindOracle locates php and the oracle ($STORH_ORACLE, else
// <module root>/../shared/oracle), or says what is missing.
func FindOracle() (*Oracle, string) {
	dir := os.Getenv(EnvOracle)
	if dir == "" {
		dir = filepath.Join(ModuleRoot(), "..", "shared", "oracle")
	}
	o := &Oracle{
		Dir:      dir,
		Autoload: filepath.Join(dir, "autoload.php"),
		Bin:      filepath.Join(dir, "storh", "bin", "storh"),
		Replay:   filepath.Join(dir, "conformance", "replay.php"),
	}
	for _, f := range []string{o.Autoload, o.Bin, o.Replay} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Sprintf("PHP oracle not found: %s missing (the oracle is ../shared/oracle beside the repository, or $%s)", f, EnvOracle)
		}
	}
	php, err := exec.LookPath("php")
	if err != nil {
		return nil, "php not installed: the PHP oracle ../shared/oracle needs php-cli (eval \"$(../shared/oracle/setup.sh)\")"
	}
	o.PHP = php
	return o, ""
}

// RequireOracle returns the oracle, or skips t (fails it with CI=true)
// naming what is missing.
func RequireOracle(t testing.TB) *Oracle {
	t.Helper()
	o, why := FindOracle()
	if o == nil {
		Missing(t, why)
	}
	return o
}

// Env is the environment of a PHP client of the oracle: STORH_AUTOLOAD and
// STORH_BIN set.
func (o *Oracle) Env() []string {
	return append(os.Environ(), "STORH_AUTOLOAD="+o.Autoload, "STORH_BIN="+o.Bin)
}
