package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/urfave/cli/v2"
)

// A failing command returns to main: its deferred cleanup runs before the
// exit status is chosen, and the status and message are the command's.
func TestFailingActionRunsDeferredCleanup(t *testing.T) {
	cleaned := false
	app := &cli.App{
		Name:           "storhfs",
		ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{{
			Name: "fail",
			Action: exitAction(func(*cli.Context) error {
				defer func() { cleaned = true }()
				return &codedError{code: exitNotOK, msg: "not ok"}
			}),
		}},
	}
	err := app.Run([]string{"storhfs", "fail"})
	if !cleaned {
		t.Fatal("deferred cleanup of the failing command did not run")
	}
	var stderr bytes.Buffer
	if code := report(&stderr, err); code != exitNotOK || stderr.String() != "not ok\n" {
		t.Fatalf("report = %d, %q; want %d, %q", code, stderr.String(), exitNotOK, "not ok\n")
	}
}

// urfave/cli's own usage errors and unknown commands become exit 2 with
// the same lines as before, through run rather than os.Exit.
func TestRunUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"storhfs", "bogus"}, "storhfs: unknown command \"bogus\" (see: storhfs --help)\n"},
		{[]string{"storhfs", "stats", "--no-such-flag"}, "flag provided but not defined: -no-such-flag (see: storhfs stats --help)\n"},
	} {
		var stderr bytes.Buffer
		if code := run(tc.argv, &stderr); code != exitUsage || stderr.String() != tc.want {
			t.Errorf("run(%q) = %d, %q; want %d, %q", tc.argv, code, stderr.String(), exitUsage, tc.want)
		}
	}
	if code := report(new(bytes.Buffer), errors.New("x")); code != exitError {
		t.Errorf("report(plain error) = %d, want %d", code, exitError)
	}
}
