package difftest

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/storhfs/storhfs/internal/corpus"
)

// replayTimeout bounds one PHP replay: a stuck PHP process must not hang the run.
const replayTimeout = 2 * time.Minute

// oracle is the PHP storh beside the repository.
type oracle struct{ *corpus.Oracle }

// findOracle locates php and the oracle, or says what is missing.
func findOracle() (*oracle, string) {
	o, why := corpus.FindOracle()
	if o == nil {
		return nil, why
	}
	return &oracle{o}, ""
}

// replayOps has PHP replay the ops file opsPath and write the case
// out/<engine>/<name>/.
func (o *oracle) replayOps(out, engine, name, opsPath string) error {
	ctx, cancel := context.WithTimeout(context.Background(), replayTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.PHP, o.Replay, out, engine, name, opsPath)
	cmd.Env = o.Env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("php replay.php %s %s: %w\n%s", engine, name, err, stderr.Bytes())
	}
	return nil
}
