package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// Exit codes of the storh-compatible commands (docs/cli.md).
const (
	exitOK       = 0
	exitError    = 1 // any failure; PHP's bin/storh uses 1 for everything
	exitUsage    = 2 // wrong arguments or flags (PHP: 1)
	exitNotOK    = 3 // verify --strict with "ok": false
	exitNoJob    = 4 // claim found no pending job (nothing printed)
	engineDoc    = "doc"
	engineLog    = "log"
	engineQueue  = "queue"
	defaultColl  = "default"
	phpUsageLine = "Usage: storh <stats|verify|compact|reindex> <root> [collection] [doc|log|queue]"
)

// codedError ends a command with a specific exit code. An empty message
// prints nothing.
type codedError struct {
	code int
	msg  string
}

func (e *codedError) Error() string { return e.msg }

func usageErr(c *cli.Context, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	usage := strings.TrimSpace("storhfs " + c.Command.Name + " " + c.Command.ArgsUsage)
	return &codedError{code: exitUsage, msg: fmt.Sprintf("%s (usage: %s)", msg, usage)}
}

// printedError is a command's failure as main prints it: line alone on
// stderr (nothing when empty), then exit with code.
type printedError struct {
	code int
	line string
}

func (e *printedError) Error() string { return e.line }

// exitAction wraps a command body: an error is printed as one line on
// stderr (the engines' PHP messages verbatim, as bin/storh prints them,
// without main's "storhfs:" prefix) and the process exits with its code
// (1 unless it is a *codedError). The error is made a *printedError here,
// not in main, so that these exit codes and bare messages do not depend on
// how main prints other commands' errors.
func exitAction(body func(c *cli.Context) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		err := body(c)
		if err == nil {
			return nil
		}
		return &printedError{code: exitCodeOf(err), line: oneLine(withSymlinkCause(err))}
	}
}

// onUsageError makes urfave/cli's own argument errors (an unknown flag, a
// bad flag value) exit with exitUsage.
func onUsageError(c *cli.Context, err error, _ bool) error {
	return &printedError{code: exitUsage, line: fmt.Sprintf("%s (see: storhfs %s --help)", oneLine(err.Error()), c.Command.Name)}
}

// oneLine keeps an error message on a single line.
func oneLine(s string) string {
	return strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
}

// target is what bin/storh's positional arguments select:
// <root> [collection] [engine].
type target struct {
	root, collection, engine string
}

// parseTarget reads ROOT [COLLECTION] [ENGINE] exactly as bin/storh does
// (docs/cli.md#arguments-and-defaults-as-binstorh): ROOT is required and must not be blank after PHP's
// trim() but is used untrimmed; COLLECTION defaults to "default" (an
// explicit "" is kept); ENGINE defaults to defaultEngine and must be doc,
// log or queue ("Unknown engine: <x>", exit 1). Unlike bin/storh, a missing
// ROOT or extra arguments are usage errors (exit 2). defaultEngine ""
// means the command takes no engine argument and ignores it (reindex).
func parseTarget(c *cli.Context, defaultEngine string) (target, error) {
	args := c.Args().Slice()
	if len(args) == 0 || phpTrim(args[0]) == "" {
		return target{}, usageErr(c, "missing ROOT")
	}
	if len(args) > 3 {
		return target{}, usageErr(c, "too many arguments")
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--") {
			return target{}, usageErr(c, "flag %s after ROOT: flags go before ROOT", a)
		}
	}
	t := target{root: storageRoot(args[0]), collection: defaultColl, engine: defaultEngine}
	if len(args) > 1 {
		t.collection = args[1]
	}
	if defaultEngine == "" {
		return t, nil
	}
	if len(args) > 2 {
		t.engine = args[2]
	}
	switch t.engine {
	case engineDoc, engineLog, engineQueue:
		return t, nil
	}
	return target{}, errors.New("Unknown engine: " + t.engine)
}

// phpTrim is PHP's trim() with its default character list.
func phpTrim(s string) string { return strings.Trim(s, " \t\n\r\x00\x0B") }

// collectionDir is the directory bin/storh's arguments name (no partition).
func (t target) collectionDir() string {
	return strings.TrimRight(t.root, `/\`) + "/" + t.collection
}

// inCollection gives an engine error that names no path (storh's messages
// often do not: "JSONC document must decode to an object.") the collection
// directory as context: "<message> (<dir>)". Other errors are unchanged.
func inCollection(err error, dir string) error {
	if err == nil || strings.Contains(err.Error(), "/") {
		return err
	}
	return &contextError{msg: err.Error() + " (" + dir + ")", err: err}
}

// contextError is an error with a reworded message; the chain is kept for
// errors.Is and errors.As.
type contextError struct {
	msg string
	err error
}

func (e *contextError) Error() string { return e.msg }
func (e *contextError) Unwrap() error { return e.err }
