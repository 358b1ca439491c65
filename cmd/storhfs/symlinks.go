package main

import (
	"errors"
	"strings"

	"github.com/storhfs/storhfs/core/fsutil"
)

// storageRoot is the ROOT argument with any symlink in it resolved once
// (fsutil.ResolveRoot): below ROOT no symlink is ever followed, and ROOT
// itself is the operator's choice. An unresolvable ROOT is returned as
// given, for the command's own check to report.
func storageRoot(root string) string {
	if resolved, err := fsutil.ResolveRoot(root); err == nil {
		return resolved
	}
	return root
}

// symlinkRefusal is the error for a collection directory that is, or whose
// data/ or .storh/ is, a symlink (refused, never followed); nil otherwise.
// Commands call it where a directory that is no collection would
// otherwise read as empty or missing.
func symlinkRefusal(dir string) error {
	for _, p := range []string{dir, dir + "/data", dir + "/.storh"} {
		_, err := fsutil.Stat(p)
		var se *fsutil.SymlinkError
		if errors.As(err, &se) {
			return err
		}
	}
	return nil
}

// withSymlinkCause is err's message, followed by the refused symlink when
// err carries one its message does not name (storh's messages, such as
// "Could not read storage file: <path>", keep PHP's text without a cause).
func withSymlinkCause(err error) string {
	msg := err.Error()
	var se *fsutil.SymlinkError
	if errors.As(err, &se) && !strings.Contains(msg, se.Error()) {
		msg += " (" + se.Error() + ")"
	}
	return msg
}
