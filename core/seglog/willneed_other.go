//go:build !linux

package seglog

import "os"

// adviseWillNeed is a no-op where posix_fadvise is not available.
func adviseWillNeed(*os.File) {}
