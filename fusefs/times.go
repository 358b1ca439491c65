package fusefs

import (
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// fileTimes are timestamps set by touch, cp -p or rsync -t.
type fileTimes struct {
	atime, mtime time.Time
}

// timesOf extracts the times of a SETATTR; a missing one defaults to the
// other (the store sets both at once).
func timesOf(in *fuse.SetAttrIn) (*fileTimes, bool) {
	mtime, hasM := in.GetMTime()
	atime, hasA := in.GetATime()
	switch {
	case !hasM && !hasA:
		return nil, false
	case !hasM:
		mtime = atime
	case !hasA:
		atime = mtime
	}
	return &fileTimes{atime: atime, mtime: mtime}, true
}
