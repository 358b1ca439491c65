package difftest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"storhfs/internal/corpus"
)

// replayTimeout bounds one PHP replay: a stuck PHP process must not hang the run.
const replayTimeout = 2 * time.Minute

// oracle is the PHP storh beside the repository.
type oracle struct {
	php      string // php-cli
	replay   string // conformance/replay.php
	autoload string // storh's autoloader (STORH_AUTOLOAD)
}

// findOracle locates php and ../shared/oracle ($STORH_ORACLE overrides),
// or says what is missing.
func findOracle() (*oracle, string) {
	dir := os.Getenv("STORH_ORACLE")
	if dir == "" {
		dir = filepath.Join(corpus.ModuleRoot(), "..", "shared", "oracle")
	}
	o := &oracle{
		replay:   filepath.Join(dir, "conformance", "replay.php"),
		autoload: filepath.Join(dir, "autoload.php"),
	}
	for _, f := range []string{o.replay, o.autoload} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Sprintf("PHP oracle not found: %s missing (the oracle is ../shared/oracle beside the repository, or $STORH_ORACLE)", f)
		}
	}
	php, err := exec.LookPath("php")
	if err != nil {
		return nil, "php not installed: the PHP oracle ../shared/oracle needs php-cli (eval \"$(../shared/oracle/setup.sh)\")"
	}
	o.php = php
	return o, ""
}

// replayOps has PHP replay the ops file opsPath and write the case
// out/<engine>/<name>/.
func (o *oracle) replayOps(out, engine, name, opsPath string) error {
	ctx, cancel := context.WithTimeout(context.Background(), replayTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.php, o.replay, out, engine, name, opsPath)
	cmd.Env = append(os.Environ(), "STORH_AUTOLOAD="+o.autoload)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("php replay.php %s %s: %w\n%s", engine, name, err, stderr.Bytes())
	}
	return nil
}
