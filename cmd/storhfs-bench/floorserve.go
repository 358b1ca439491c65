package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
)

// floorServeArg makes the bench binary the floor's server: the floor mount
// is served by this separate process, never by the one reading it.
const floorServeArg = "__floor-serve"

// floorOptions are the floor's settings: storhfs's by default, or a
// variant that shows what part of the floor a setting costs.
type floorOptions struct {
	timeout time.Duration // kernel entry/attr/negative cache lifetime (storhfs: 1 s)
	noOpen  bool          // answer OPEN with ENOSYS: no OPEN/RELEASE round trips
}

var storhfsFloor = floorOptions{timeout: time.Second}

// args are the server's flags for o.
func (o floorOptions) args() []string {
	return []string{"-timeout", o.timeout.String(), "-no-open=" + strconv.FormatBool(o.noOpen)}
}

// String describes a variant for the report ("" for storhfs's settings).
func (o floorOptions) String() string {
	var diffs []string
	if o.timeout != storhfsFloor.timeout {
		diffs = append(diffs, o.timeout.String()+" cache timeouts")
	}
	if o.noOpen {
		diffs = append(diffs, "no OPEN/RELEASE (ENOSYS)")
	}
	return strings.Join(diffs, ", ")
}

// startFloor runs the bench binary self as the floor server of the
// collection in collectionDir at mountpoint and waits until it is mounted.
// The server gets SIGTERM if the bench process dies.
func startFloor(self, collectionDir, mountpoint string, o floorOptions) (*mountProc, error) {
	argv := slices.Concat([]string{floorServeArg}, o.args(), []string{collectionDir, mountpoint})
	cmd := exec.Command(self, argv...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	m, err := startServer(cmd, mountpoint)
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	return m, nil
}

// runFloorServer is the floor server: args are floorOptions.args, the
// collection directory and the mount point. It loads the records into
// memory, mounts, prints one "mounted" line on stdout, and unmounts on
// SIGTERM or SIGINT.
func runFloorServer(args []string, stdout io.Writer) error {
	var o floorOptions
	flags := flag.NewFlagSet(floorServeArg, flag.ContinueOnError)
	flags.DurationVar(&o.timeout, "timeout", storhfsFloor.timeout, "entry, attribute and negative cache timeout")
	flags.BoolVar(&o.noOpen, "no-open", false, "answer OPEN with ENOSYS")
	debug := flags.Bool("debug", false, "log every FUSE request to stderr (to count them; run by hand)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() != 2 || o.timeout <= 0 {
		return fmt.Errorf("usage: %s [-timeout D] [-no-open] COLLECTION_DIR MOUNTPOINT", floorServeArg)
	}
	collectionDir, mountpoint := flags.Arg(0), flags.Arg(1)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	tree, err := loadFloorTree(collectionDir)
	if err != nil {
		return err
	}
	root := &floorDir{tree: tree, noOpen: o.noOpen}
	opts := floorMountOptions(os.Geteuid() == 0, o.timeout)
	opts.Debug = *debug
	server, err := fs.Mount(mountpoint, root, opts)
	if err != nil {
		return fmt.Errorf("floor: mount %s: %w", mountpoint, err)
	}
	served := make(chan struct{})
	go func() { server.Wait(); close(served) }()
	fmt.Fprintf(stdout, "floor mounted at %s: %d files, %d bytes from %s\n",
		mountpoint, len(tree.files), tree.totalBytes(), collectionDir)
	select {
	case <-served:
		return errors.New("floor: unmounted from outside")
	case <-sig:
	}
	if err := server.Unmount(); err != nil {
		// Busy (a tool still inside): detach it so no mount is left behind.
		if lazyErr := exec.Command("umount", "-l", mountpoint).Run(); lazyErr != nil {
			return fmt.Errorf("floor: unmount %s: %w; umount -l: %v", mountpoint, err, lazyErr)
		}
	}
	return nil
}
