package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/internal/fusectl"
)

func unmountCommand() *cli.Command {
	return &cli.Command{
		Name:      "unmount",
		Usage:     "unmount a storhfs mount; --force recovers a hung or dead one",
		ArgsUsage: "MOUNTPOINT",
		Description: `Unmounts the storhfs mount at MOUNTPOINT (umount2 as root, fusermount3 -u
otherwise); the mount process then exits. It fails while files are open
there.

With --force, first aborts the mount's FUSE connection through fusectl
(/sys/fs/fuse/connections/<minor>/abort, mounting fusectl there if needed):
every pending and future request fails at once with "Transport endpoint is
not connected", which wakes processes stuck on a hung or killed mount
process (umount -l alone does not). Then detaches the mount (MNT_DETACH)
even if files are open. Unsaved writes of the aborted mount are lost; their
close() fails. Only fuse.storhfs mounts are touched.

Example:
   $ storhfs unmount /mnt/storh
   $ storhfs unmount --force /mnt/storh    # processes hang in ls /mnt/storh`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "abort the FUSE connection, then detach even if busy"},
		},
		Action: runUnmount,
	}
}

func runUnmount(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError(c, "need MOUNTPOINT")
	}
	mountpoint, err := mountinfoPath(c.Args().First())
	if err != nil {
		return err
	}
	// Checked first: it refuses anything but a storhfs mount.
	minor, err := fusectl.MinorOf(mountpoint)
	if err != nil {
		return fmt.Errorf("unmount: %w", err)
	}
	if !c.Bool("force") {
		if err := unmountStorhfs(mountpoint, false); err != nil {
			return fmt.Errorf("unmount %s: %w (storhfs unmount --force %s detaches it anyway)", mountpoint, err, mountpoint)
		}
		return nil
	}
	if err := fusectl.Abort(minor); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("unmount --force %s: %w", mountpoint, err)
	}
	if err := unmountStorhfs(mountpoint, true); err != nil {
		return fmt.Errorf("unmount --force %s: connection aborted, but: %w", mountpoint, err)
	}
	fmt.Fprintf(c.App.Writer, "storhfs: aborted FUSE connection %d and detached %s\n", minor, mountpoint)
	return nil
}

// mountinfoPath is arg as /proc/self/mountinfo spells it: absolute, with
// the parent's symlinks resolved. The mount point itself is not touched (a
// stat of a hung mount never returns).
func mountinfoPath(arg string) (string, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", err
	}
	if abs == "/" {
		return abs, nil
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", fmt.Errorf("mountpoint %s: %w", arg, err)
	}
	return filepath.Join(parent, filepath.Base(abs)), nil
}

// unmountStorhfs unmounts with umount2 as root, with fusermount3 otherwise
// (the mounting user's own mounts); detach makes it lazy (MNT_DETACH).
func unmountStorhfs(mountpoint string, detach bool) error {
	if os.Geteuid() == 0 {
		flags := 0
		if detach {
			flags = unix.MNT_DETACH
		}
		return unix.Unmount(mountpoint, flags)
	}
	args := []string{"-u", mountpoint}
	if detach {
		args = []string{"-u", "-z", mountpoint}
	}
	for _, bin := range []string{"fusermount3", "fusermount"} {
		if path, err := exec.LookPath(bin); err == nil {
			if out, err := exec.Command(path, args...).CombinedOutput(); err != nil {
				return fmt.Errorf("%s %s: %v: %s", bin, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
			}
			return nil
		}
	}
	return errors.New("not root and no fusermount3 (Debian package fuse3)")
}
