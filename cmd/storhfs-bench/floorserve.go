package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"

	"github.com/storhfs/storhfs/internal/fuseuring"
)

// floorServeArg makes the bench binary the floor's server: the floor mount
// is served by this separate process, never by the one reading it.
const floorServeArg = "__floor-serve"

// floorMode is how the floor's files answer OPEN and FLUSH, which decides
// the round trips the kernel makes per open and close of a file.
type floorMode string

const (
	// floorOpen: OPEN answered with KEEP_CACHE and NOFLUSH, as storhfs
	// answers a read-only open: OPEN and RELEASE per open, no FLUSH.
	floorOpen floorMode = "open"
	// floorNoOpen: OPEN and FLUSH answered ENOSYS, as on a read-only
	// storhfs mount: no request per open or close at all.
	floorNoOpen floorMode = "no-open"
	// floorNoOpenFlush: OPEN answered ENOSYS, FLUSH served: one FLUSH per
	// close and nothing per open, what a read-write mount that buffers
	// writes per node and commits on FLUSH would cost.
	floorNoOpenFlush floorMode = "no-open-flush"
)

var floorModes = []floorMode{floorOpen, floorNoOpen, floorNoOpenFlush}

// parseFloorMode accepts one of floorModes.
func parseFloorMode(s string) (floorMode, error) {
	if m := floorMode(s); slices.Contains(floorModes, m) {
		return m, nil
	}
	return "", fmt.Errorf("floor mode %q: want one of %v", s, floorModes)
}

// floorOptions are the floor's settings: storhfs's by default, or a
// variant that shows what part of the floor a setting costs.
type floorOptions struct {
	timeout time.Duration // kernel entry/attr/negative cache lifetime (storhfs: 1 s)
	mode    floorMode
	debug   bool // the server logs every request to its stderr (tests count them)
	ioUring bool // requests travel over io_uring (internal/fuseuring), as with storhfs --io-uring
}

var storhfsFloor = floorOptions{timeout: time.Second, mode: floorOpen}

// args are the server's flags for o.
func (o floorOptions) args() []string {
	args := []string{"-timeout", o.timeout.String(), "-mode", string(o.mode)}
	if o.debug {
		args = append(args, "-debug")
	}
	if o.ioUring {
		args = append(args, "-io-uring")
	}
	return args
}

// String describes a variant for the report ("" for storhfs's settings).
func (o floorOptions) String() string {
	var diffs []string
	if o.timeout != storhfsFloor.timeout {
		diffs = append(diffs, o.timeout.String()+" cache timeouts")
	}
	switch o.mode {
	case floorNoOpen:
		diffs = append(diffs, "no OPEN/RELEASE/FLUSH (OPEN and FLUSH answered ENOSYS)")
	case floorNoOpenFlush:
		diffs = append(diffs, "no OPEN/RELEASE, FLUSH per close (OPEN answered ENOSYS)")
	}
	if o.ioUring {
		diffs = append(diffs, "over io_uring")
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
	mode := flags.String("mode", string(floorOpen), fmt.Sprintf("how OPEN and FLUSH are answered: %v", floorModes))
	debug := flags.Bool("debug", false, "log every FUSE request to stderr (to count them; run by hand)")
	flags.BoolVar(&o.ioUring, "io-uring", false, "serve over io_uring (the fuse module's enable_uring must be on)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() != 2 || o.timeout <= 0 {
		return fmt.Errorf("usage: %s [-timeout D] [-mode M] COLLECTION_DIR MOUNTPOINT", floorServeArg)
	}
	var err error
	if o.mode, err = parseFloorMode(*mode); err != nil {
		return err
	}
	collectionDir, mountpoint := flags.Arg(0), flags.Arg(1)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	tree, err := loadFloorTree(collectionDir)
	if err != nil {
		return err
	}
	root := &floorDir{tree: tree, mode: o.mode}
	opts := floorMountOptions(os.Geteuid() == 0, o.timeout, o.ioUring)
	opts.Debug = *debug
	rawFS := fs.NewNodeFS(root, opts)
	server, _, served, err := fuseuring.Mount(mountpoint, rawFS, &opts.MountOptions, o.ioUring, log.New(os.Stderr, "floor: ", log.LstdFlags))
	if err != nil {
		return fmt.Errorf("floor: mount %s: %w", mountpoint, err)
	}
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
