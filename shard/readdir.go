package shard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/fsutil"
)

// readDir returns the sorted record keys of the regular files directly in
// dir and the paths of its subdirectories. Symlinks are never followed
// (README.md, "Consistency with live PHP writers"): a symlinked record or subdirectory is left out, and a dir
// that is or passes through a symlink fails with ELOOP. A missing dir
// gives an error wrapping fs.ErrNotExist.
func readDir(dir string) (ids, subdirs []string, err error) {
	f, err := fsutil.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("scan records %s: %w", dir, err)
	}
	defer f.Close()
	// os.File.ReadDir takes the type from the directory entry and lstats
	// entries of unknown type (skipping those removed meanwhile), so a
	// symlink shows as fs.ModeSymlink: neither a record nor a subdirectory.
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, nil, fmt.Errorf("scan records %s: %w", dir, err)
	}
	for _, e := range entries {
		switch {
		case e.IsDir():
			subdirs = append(subdirs, dir+"/"+e.Name())
		case e.Type().IsRegular():
			if id, ok := IDFromName(e.Name()); ok {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return ids, subdirs, nil
}
