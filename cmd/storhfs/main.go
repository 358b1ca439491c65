// Command storhfs mounts storh storage roots and maintains their collections.
// Each command lives in its own file (mount.go, records.go, demo.go,
// maint.go, ...) and is registered in newApp.
package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	app := newApp()
	// mount(8) calling storhfs as the helper for fuse.storhfs (fstab.go).
	if isMountHelperCall(os.Args, commandNames(app)) {
		os.Exit(runMountHelper(os.Args, os.Stderr))
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "storhfs:", err)
		os.Exit(1)
	}
}

func newApp() *cli.App {
	return &cli.App{
		Name:  "storhfs",
		Usage: "a FUSE file system for storh data directories",
		Commands: append([]*cli.Command{
			mountCommand(),
			unmountCommand(),
			watchdogCommand(),
			putCommand(),
			deleteCommand(),
			demoCommand(),
		}, append(extraCommands(), testAidCommands()...)...),
		HideHelpCommand: true,
		// Errors are printed once, by main.
		ExitErrHandler: func(*cli.Context, error) {},
	}
}

// usageError reports wrong arguments with the command's usage line.
func usageError(c *cli.Context, format string, args ...any) error {
	return fmt.Errorf("%s (usage: storhfs %s %s)", fmt.Sprintf(format, args...), c.Command.Name, c.Command.ArgsUsage)
}
