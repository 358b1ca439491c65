// Command storhfs mounts storh storage roots and maintains their collections.
// Each command lives in its own file (mount.go, records.go, demo.go,
// maint.go, ...) and is registered in newApp.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	cli.VersionPrinter = func(c *cli.Context) { readBuildVersion().print(c.App.Writer) }
	os.Exit(run(os.Args, os.Stderr))
}

// run is main without the exit: commands return their errors here, so
// every deferred cleanup has run before the process ends; it prints the
// error and returns the exit status.
func run(argv []string, stderr io.Writer) int {
	app := newApp()
	var notFound error
	// An unknown command is a usage error (exit 2), like any other.
	// urfave/cli gives this hook no error result, so keep it for Run's.
	app.CommandNotFound = func(_ *cli.Context, name string) {
		notFound = &printedError{code: exitUsage, line: fmt.Sprintf("storhfs: unknown command %q (see: storhfs --help)", name)}
	}
	// A completion request (the last argument, for urfave/cli) is left as it is.
	if len(argv) > 1 && argv[1] == "mount" && argv[len(argv)-1] != "--generate-bash-completion" {
		args, err := mountCommandArgs(argv[2:], mountCommand().Flags)
		if err != nil {
			fmt.Fprintln(stderr, "storhfs mount:", err)
			return exitUsage
		}
		argv = append(argv[:2:2], args...)
	}
	// mount(8) calling storhfs as the helper for fuse.storhfs (fstab.go).
	if isMountHelperCall(argv, commandNames(app)) {
		return runMountHelper(argv, stderr)
	}
	err := app.Run(argv)
	if err == nil {
		err = notFound
	}
	return report(stderr, err)
}

// report prints a command's error and returns its exit status: a
// *printedError as its own line, anything else after "storhfs:".
func report(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var pe *printedError
	if errors.As(err, &pe) {
		if pe.line != "" {
			fmt.Fprintln(stderr, pe.line)
		}
		return pe.code
	}
	fmt.Fprintln(stderr, "storhfs:", withSymlinkCause(err))
	return exitCodeOf(err)
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
		}, append(extraCommands(),
			versionCommand(), completionCommand(), manCommand())...),
		HideHelpCommand:      true,
		EnableBashCompletion: true,
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
