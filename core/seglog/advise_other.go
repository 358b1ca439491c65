//go:build !linux

package seglog

import "os"

// adviseWillNeed does nothing where posix_fadvise is not available.
func adviseWillNeed(*os.File) {}
