// Command storhfs mounts storh storage roots and maintains their collections.
// Each command lives in its own file (mount.go, records.go, demo.go,
// maint.go, ...) and is registered in newApp.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	cli.VersionPrinter = func(c *cli.Context) { readBuildVersion().print(c.App.Writer) }
	app := newApp()
	if len(os.Args) > 1 && os.Args[1] == "mount" {
		args, err := mountCommandArgs(os.Args[2:], mountCommand().Flags)
		if err != nil {
			fmt.Fprintln(os.Stderr, "storhfs mount:", err)
			os.Exit(exitUsage)
		}
		os.Args = append(os.Args[:2:2], args...)
	}
	// mount(8) calling storhfs as the helper for fuse.storhfs (fstab.go).
	if isMountHelperCall(os.Args, commandNames(app)) {
		os.Exit(runMountHelper(os.Args, os.Stderr))
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "storhfs:", withSymlinkCause(err))
		os.Exit(exitCodeOf(err))
	}
}

// exitCodeOf is the exit status for a command's error: a *codedError's
// own code (exitUsage for wrong arguments), else exitError.
func exitCodeOf(err error) int {
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	return exitError
}

func newApp() *cli.App {
	return &cli.App{
		Name:    "storhfs",
		Usage:   "a FUSE file system for storh data directories",
		Version: readBuildVersion().storhfs,
		Commands: append([]*cli.Command{
			mountCommand(),
			unmountCommand(),
			watchdogCommand(),
			putCommand(),
			deleteCommand(),
			demoCommand(),
		}, append(extraCommands(), append([]*cli.Command{
			versionCommand(), completionCommand(), manCommand(),
		}, testAidCommands()...)...)...),
		HideHelpCommand:      true,
		EnableBashCompletion: true,
		// An unknown command is a usage error (exit 2), like any other.
		CommandNotFound: func(c *cli.Context, name string) {
			fmt.Fprintf(os.Stderr, "storhfs: unknown command %q (see: storhfs --help)\n", name)
			os.Exit(exitUsage)
		},
		// Errors are printed once, by main.
		ExitErrHandler: func(*cli.Context, error) {},
	}
}

// usageError reports wrong arguments with the command's usage line; the
// process exits with exitUsage.
func usageError(c *cli.Context, format string, args ...any) error {
	msg := fmt.Sprintf("%s (usage: storhfs %s %s)", fmt.Sprintf(format, args...), c.Command.Name, c.Command.ArgsUsage)
	return &codedError{code: exitUsage, msg: msg}
}
