package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/storhfs/storhfs/fusefs"
)

// Checks that refuse a mount which would look like success but is a
// mistake: a ROOT and MOUNTPOINT that overlap (the mount would serve its
// own requests and hang), a MOUNTPOINT that already holds files (they would
// be hidden), a ROOT that holds other files but no storh collection (it
// would show as an empty folder). Each refusal is one line; the last two
// name the flag that overrides them.

const (
	allowNonEmptyFlag     = "allow-non-empty"
	allowForeignRootFlag  = "allow-foreign-root"
	foreignEntriesToQuote = 3
)

// resolvePaths returns root and mountpoint with every symlink resolved;
// both must exist.
func resolvePaths(root, mountpoint string) (realRoot, realMountpoint string, err error) {
	if realRoot, err = filepath.EvalSymlinks(root); err != nil {
		return "", "", fmt.Errorf("storage root %s: %w", root, err)
	}
	if realMountpoint, err = filepath.EvalSymlinks(mountpoint); err != nil {
		return "", "", fmt.Errorf("mountpoint %s: %w", mountpoint, err)
	}
	return realRoot, realMountpoint, nil
}

// checkOverlap refuses a mountpoint equal to the storage root, inside it,
// or containing it (paths already resolved): the mount would then read its
// own mountpoint while serving it. root and mountpoint are the paths as
// given, named in the message next to what they resolve to.
func checkOverlap(root, realRoot, mountpoint, realMountpoint string) error {
	shown := func(given, real string) string {
		if given == real {
			return given
		}
		return fmt.Sprintf("%s (resolves to %s)", given, real)
	}
	r, m := shown(root, realRoot), shown(mountpoint, realMountpoint)
	switch {
	case realRoot == realMountpoint:
		return fmt.Errorf("storage root %s and mountpoint %s are the same directory: the mount would serve itself; use a mountpoint outside ROOT", r, m)
	case isWithin(realRoot, realMountpoint):
		return fmt.Errorf("mountpoint %s is inside storage root %s: the mount would serve itself; use a mountpoint outside ROOT", m, r)
	case isWithin(realMountpoint, realRoot):
		return fmt.Errorf("storage root %s is inside mountpoint %s: the mount would hide and serve its own data; use a mountpoint outside ROOT", r, m)
	}
	return nil
}

// isWithin reports whether path lies below dir (both clean and absolute).
func isWithin(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../")
}

// checkMountpointEmpty refuses a mountpoint that holds anything unless
// allowed: the mount would hide those files until it is unmounted.
func checkMountpointEmpty(mountpoint string, allowed bool) error {
	if allowed {
		return nil
	}
	d, err := os.Open(mountpoint)
	if err != nil {
		return fmt.Errorf("mountpoint %s: %w", mountpoint, err)
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return fmt.Errorf("mountpoint %s: %w", mountpoint, err)
	}
	return fmt.Errorf("mountpoint %s is not empty (it holds %q): the mount would hide its files; empty it, choose another, or pass --%s", mountpoint, names[0], allowNonEmptyFlag)
}

// checkForeignRoot refuses a storage root that holds files but no storh
// collection unless allowed: it would mount as an empty folder. An empty
// root (a new storage root) mounts.
func checkForeignRoot(root string, catalog *fusefs.DirCatalog, allowed bool) error {
	if allowed {
		return nil
	}
	names, err := catalog.ForeignEntries()
	if err != nil {
		return fmt.Errorf("storage root %s: %w", root, err)
	}
	if len(names) == 0 {
		return nil
	}
	quoted := make([]string, 0, foreignEntriesToQuote)
	for _, n := range names[:min(len(names), foreignEntriesToQuote)] {
		quoted = append(quoted, fmt.Sprintf("%q", n))
	}
	more := ""
	if len(names) > foreignEntriesToQuote {
		more = fmt.Sprintf(" and %d more", len(names)-foreignEntriesToQuote)
	}
	return fmt.Errorf("storage root %s holds no storh collection but other entries (%s%s): is it the right directory? It would mount as an empty folder; pass --%s to mount it anyway", root, strings.Join(quoted, ", "), more, allowForeignRootFlag)
}
