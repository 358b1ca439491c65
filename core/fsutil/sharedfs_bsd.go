//go:build darwin || freebsd

package fsutil

import "golang.org/x/sys/unix"

// SharedFS reports whether dir is on a file system that other hosts may
// write too, or whose changes the watcher may miss, judged by the
// statfs(2) type name (the BSDs and macOS have no magic numbers). Unknown
// names count as local.
func SharedFS(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	return sharedTypeNames[unix.ByteSliceToString(st.Fstypename[:])]
}

// sharedTypeNames are the statfs f_fstypename values of network and FUSE
// file systems.
var sharedTypeNames = map[string]bool{
	"nfs": true, "smbfs": true, "afpfs": true, "webdav": true,
	"macfuse": true, "osxfuse": true, "fusefs": true, "fuse": true,
}
