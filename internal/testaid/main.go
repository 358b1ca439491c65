// Command storhfs-testaid writes logs, queues and mounted records the way
// a PHP application would while a mount is live. The integration tests
// build it next to the storhfs binary and run it as separate processes; it
// is not part of the product.
package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/fsutil"
)

func main() {
	app := &cli.App{
		Name:     "storhfs-testaid",
		Usage:    "test aid for the storhfs integration tests",
		Commands: append(engineCommands(), closeWriterCommand()),
		// Errors are printed once, below.
		ExitErrHandler: func(*cli.Context, error) {},
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "storhfs-testaid:", err)
		os.Exit(1)
	}
}

// usageError reports wrong arguments with the command's usage line.
func usageError(c *cli.Context, format string, args ...any) error {
	return fmt.Errorf("%s (usage: storhfs-testaid %s %s)", fmt.Sprintf(format, args...), c.Command.Name, c.Command.ArgsUsage)
}

// storageRoot resolves a root given through a symlink, as storhfs does.
func storageRoot(root string) string {
	if resolved, err := fsutil.ResolveRoot(root); err == nil {
		return resolved
	}
	return root
}
