package seglog

import (
	"os"

	"golang.org/x/sys/unix"
)

// adviseWillNeed starts reading f into the page cache (a hint: errors are
// ignored).
func adviseWillNeed(f *os.File) { _ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_WILLNEED) }
