// Package fuseattr is how the storhfs mount describes stored files to the
// kernel, shared with the benchmark's FUSE floor (cmd/storhfs-bench),
// which must show files exactly as the mount does.
package fuseattr

import (
	"os"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// Permission bits shown for everything: the mount has no per-file modes
// (chmod/chown are accepted and ignored).
const (
	FilePerm   = 0o644 // a read-write mount's records and view files
	DirPerm    = 0o755 // a read-write mount's folders
	ROFilePerm = 0o444 // the same on a read-only mount
	RODirPerm  = 0o555
)

// FromInfo copies size, times and owner of a stored file or directory,
// with permission bits perm. The inode number is left 0: go-fuse fills in
// the node's own.
func FromInfo(out *fuse.Attr, fi os.FileInfo, perm uint32) {
	out.Mode = perm
	out.Size = uint64(fi.Size())
	out.Nlink = 1
	mtime := fi.ModTime()
	atime, ctime := mtime, mtime
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		out.Blocks = uint64(st.Blocks)
		out.Blksize = uint32(st.Blksize)
		out.Owner = fuse.Owner{Uid: st.Uid, Gid: st.Gid}
		atime = time.Unix(st.Atim.Sec, st.Atim.Nsec)
		ctime = time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	if fi.IsDir() {
		out.Nlink = 2
		out.Size = 4096
	}
	out.SetTimes(&atime, &mtime, &ctime)
}
