package main

// storhfs as the mount(8) helper for the file system type fuse.storhfs, so
// that /etc/fstab, `mount -t fuse.storhfs` and systemd's mount units work.
//
// mount(8) runs a helper and waits for it to exit; the mount must outlive
// it. Two calling conventions reach storhfs:
//
//	mount.fuse.storhfs SOURCE MOUNTPOINT [-s] [-f] [-n] [-v] [-o OPTIONS] [-t TYPE]
//	    util-linux runs /sbin/mount.fuse.storhfs (a link to storhfs) itself;
//	    recognised by the name the binary was called by.
//	storhfs SOURCE MOUNTPOINT -o OPTIONS
//	    fuse3's /sbin/mount.fuse runs this through /bin/sh (it always passes
//	    -o, at least "dev,suid"); recognised by a first argument that is not a
//	    storhfs command followed by MOUNTPOINT and -o.
//
// The helper re-executes itself as `storhfs mount --detached-log LOG ...` in
// a new session (no terminal, stdin /dev/null), waits for the child's ready
// line on a pipe and exits 0; if the child exits first, the helper prints
// the child's error and exits 32 (mount(8)'s "mount failure"). The child
// keeps serving until the file system is unmounted (umount, fusermount3 -u)
// or it gets SIGTERM, and then exits 0.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"
)

// mountHelperName is the name util-linux looks for when mounting fuse.storhfs.
const mountHelperName = "mount.fuse.storhfs"

// detachedLogFlag is the hidden mount flag the helper starts its child with:
// once mounted, the child sends its stdout and stderr to this file.
const detachedLogFlag = "detached-log"

// Exit statuses of the helper, as mount(8) documents them for helpers.
const (
	exitHelperUsage  = 1  // incorrect invocation
	exitMountFailure = 32 // the mount did not come up
	readyLinePrefix  = "storhfs: mounted "
)

// helperRequest is one parsed helper invocation.
type helperRequest struct {
	Source, Mountpoint string
	Flags              []string // the -o options as mount flags (mountopts.go), but log
	LogPath            string   // log=FILE: where the mount's output goes once it is ready; "" discards it
	Fake               bool     // mount -f: check the arguments, mount nothing
}

// commandNames are the names and aliases a first argument can select.
func commandNames(app *cli.App) map[string]bool {
	names := map[string]bool{"help": true, "h": true}
	for _, cmd := range app.Commands {
		for _, name := range cmd.Names() {
			names[name] = true
		}
	}
	return names
}

// isMountHelperCall reports whether argv is one of the two helper calling
// conventions above rather than a storhfs command line.
func isMountHelperCall(argv []string, commands map[string]bool) bool {
	if len(argv) == 0 {
		return false
	}
	if filepath.Base(argv[0]) == mountHelperName {
		return true
	}
	return len(argv) >= 5 && argv[1] != "" && !strings.HasPrefix(argv[1], "-") &&
		!commands[argv[1]] && argv[3] == "-o"
}

// parseHelperArgs parses the arguments after argv[0].
func parseHelperArgs(args []string) (helperRequest, error) {
	var req helperRequest
	var positional, options []string
	sloppy := false
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; arg {
		case "-s":
			sloppy = true
		case "-f":
			req.Fake = true
		case "-n", "-v":
		case "-o", "-t", "-N":
			if i+1 == len(args) {
				return req, fmt.Errorf("option %s needs a value", arg)
			}
			i++
			switch arg {
			case "-o":
				options = append(options, args[i])
			case "-N":
				return req, fmt.Errorf("mounting in another namespace (-N %s) is not supported", args[i])
			}
		default:
			if strings.HasPrefix(arg, "-") {
				return req, fmt.Errorf("unknown option %s", arg)
			}
			positional = append(positional, arg)
		}
	}
	if len(positional) != 2 {
		return req, fmt.Errorf("need SOURCE and MOUNTPOINT (usage: %s SOURCE MOUNTPOINT [-o OPTIONS])", mountHelperName)
	}
	req.Source, req.Mountpoint = positional[0], positional[1]
	flags := mountCommand().Flags
	for _, opts := range options {
		translated, err := optionFlags(opts, flags, sloppy)
		if err != nil {
			return req, err
		}
		for _, f := range translated {
			if path, ok := strings.CutPrefix(f, "--"+logFileFlag+"="); ok {
				req.LogPath = path
				continue
			}
			req.Flags = append(req.Flags, f)
		}
	}
	return req, nil
}

// runMountHelper is main for a helper invocation; it returns the exit status.
func runMountHelper(argv []string, stderr io.Writer) int {
	req, err := parseHelperArgs(argv[1:])
	if err != nil {
		fmt.Fprintf(stderr, "storhfs: %v\n", err)
		return exitHelperUsage
	}
	if req.Fake {
		return 0
	}
	if err := startDetachedMount(req, stderr); err != nil {
		fmt.Fprintln(stderr, err)
		return exitMountFailure
	}
	return 0
}

// childMountArgs is the command line of the serving child, paths absolute
// because the child runs in /.
func childMountArgs(req helperRequest) ([]string, error) {
	logPath := os.DevNull
	if req.LogPath != "" {
		logPath = req.LogPath
	}
	var abs [3]string
	for i, p := range []string{logPath, req.Source, req.Mountpoint} {
		a, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("storhfs: %s: %w", p, err)
		}
		abs[i] = a
	}
	args := append([]string{"storhfs", "mount", "--" + detachedLogFlag, abs[0]}, req.Flags...)
	return append(args, abs[1], abs[2]), nil
}

// startDetachedMount starts the serving child and returns once it printed
// its ready line, or with the child's error and exit code (a
// *codedError) once it exited. Warnings the
// child printed before it was ready are copied to stderr.
func startDetachedMount(req helperRequest, stderr io.Writer) error {
	args, err := childMountArgs(req)
	if err != nil {
		return err
	}
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("storhfs: %w", err)
	}
	defer devNull.Close()
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("storhfs: %w", err)
	}
	defer readyR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		readyW.Close()
		return fmt.Errorf("storhfs: %w", err)
	}
	defer errR.Close()
	child := &exec.Cmd{
		// /proc/self/exe is this very binary even if the file was replaced.
		Path:        "/proc/self/exe",
		Args:        args,
		Dir:         "/",
		Stdin:       devNull,
		Stdout:      readyW,
		Stderr:      errW,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	err = child.Start()
	readyW.Close()
	errW.Close()
	if err != nil {
		return fmt.Errorf("storhfs: start the mount: %w", err)
	}
	// The child's stderr reaches EOF when it exits or, once mounted, moves
	// its stderr to the log; read it concurrently so a chatty child never
	// blocks on a full pipe.
	errText := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(errR)
		errText <- string(b)
	}()
	line, _ := bufio.NewReader(readyR).ReadString('\n')
	if strings.HasPrefix(line, readyLinePrefix) {
		io.WriteString(stderr, <-errText)
		return child.Process.Release()
	}
	waitErr := child.Wait()
	msg := lastLine(<-errText)
	if msg == "" {
		msg = fmt.Sprintf("storhfs: the mount of %s exited before it was ready (%v)", req.Mountpoint, waitErr)
	}
	return childFailure(msg, waitErr)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// announceMounted prints the ready line. With a detached log (the helper's
// child) stderr is moved to the log before the line and stdout right after
// it, so the helper sees EOF on both pipes and nothing is ever written to a
// pipe whose reader has exited.
func announceMounted(logPath, line string) error {
	if logPath == "" {
		_, err := io.WriteString(os.Stdout, line)
		return err
	}
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	defer log.Close()
	if err := syscall.Dup3(int(log.Fd()), int(os.Stderr.Fd()), 0); err != nil {
		return fmt.Errorf("log file %s: %w", logPath, err)
	}
	if _, err := io.WriteString(os.Stdout, line); err != nil {
		return err
	}
	if err := syscall.Dup3(int(log.Fd()), int(os.Stdout.Fd()), 0); err != nil {
		return fmt.Errorf("log file %s: %w", logPath, err)
	}
	return nil
}
