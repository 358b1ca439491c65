package main

import "errors"

// Exit codes of `storhfs mount` (docs/cli.md), one per failure class, so a
// script or unit can tell a typo in ROOT from a missing /dev/fuse without
// parsing messages. The mount(8) helper keeps mount(8)'s own codes
// (exitHelperUsage, exitMountFailure in fstab.go).
const (
	exitMountRoot       = 10 // ROOT missing, not a directory, or not a storage root
	exitMountpoint      = 11 // MOUNTPOINT missing, not a directory, not empty, or overlapping ROOT
	exitAlreadyMounted  = 12 // MOUNTPOINT is already a mount point (or a dead FUSE mount)
	exitNoFuse          = 13 // /dev/fuse is missing or cannot be opened
	exitMountFailed     = 14 // the kernel or fusermount3 refused the mount
	exitMountLogFailure = 15 // the log (--log-file, syslog) cannot be opened
)

// coded gives err the exit code code; nil stays nil. The message is err's.
func coded(code int, err error) error {
	if err == nil {
		return nil
	}
	var ce *codedError
	if errors.As(err, &ce) {
		return err
	}
	return &codedError{code: code, msg: err.Error()}
}
