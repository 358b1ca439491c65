package main

// Background mode: `storhfs mount --daemon ROOT MOUNTPOINT` starts the
// serving child the way the mount(8) helper does (fstab.go:
// startDetachedMount) and returns once the mount is ready (exit 0), or
// with the child's error and exit code once the child gave up.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"
)

const daemonFlag = "daemon"

// daemonRequest is the helper request equivalent to a --daemon command
// line: every flag set on it is handed to the child but --daemon itself;
// --log-file is also the child's detached log (its stdout and stderr once
// mounted).
func daemonRequest(c *cli.Context) helperRequest {
	req := helperRequest{Source: c.Args().Get(0), Mountpoint: c.Args().Get(1), LogPath: c.String(logFileFlag)}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if name == daemonFlag || name == detachedLogFlag || !c.IsSet(name) {
			continue
		}
		req.Flags = append(req.Flags, fmt.Sprintf("--%s=%v", name, c.Value(name)))
	}
	return req
}

// runDaemon mounts in the background and returns once the mount serves.
func runDaemon(c *cli.Context) error {
	err := startDetachedMount(daemonRequest(c), os.Stderr)
	var ce *codedError
	if errors.As(err, &ce) {
		// main prefixes "storhfs: " itself.
		ce.msg = strings.TrimPrefix(ce.msg, "storhfs: ")
	}
	return err
}

// childFailure is the error of a serving child that exited before it was
// ready, with the child's exit code (exitcodes.go).
func childFailure(msg string, waitErr error) error {
	code := exitMountFailed
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) && ee.ExitCode() > 0 {
		code = ee.ExitCode()
	}
	return &codedError{code: code, msg: msg}
}
