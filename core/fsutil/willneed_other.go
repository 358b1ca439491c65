//go:build !linux

package fsutil

// AdviseWillNeed is a no-op where posix_fadvise is not available.
func AdviseWillNeed(int) {}
