package fusefs

import (
	"os"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// Permission bits shown for everything: the mount has no per-file modes
// (chmod/chown are accepted and ignored).
const (
	filePerm   = 0o644
	dirPerm    = 0o755
	roFilePerm = 0o444
	roDirPerm  = 0o555

	// FilePerm and DirPerm are the modes of a read-write mount's records
	// and folders.
	FilePerm = filePerm
	DirPerm  = dirPerm
)

// SetAttrFromInfo copies size, times and owner of a stored file or
// directory, with permission bits perm. The inode number is left 0:
// go-fuse fills in the node's own. Exported for the benchmark's FUSE
// floor, which must show files as the mount does.
func SetAttrFromInfo(out *fuse.Attr, fi os.FileInfo, perm uint32) {
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

// setMemAttr describes an in-memory file (scratch, or a record whose first
// content is not committed yet).
func setMemAttr(out *fuse.Attr, size int, mtime time.Time, perm uint32) {
	out.Mode = perm
	out.Size = uint64(size)
	out.Blocks = (uint64(size) + 511) / 512
	out.Nlink = 1
	out.Owner = fuse.Owner{Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid())}
	out.SetTimes(&mtime, &mtime, &mtime)
}

func (m *mountState) filePerm() uint32 {
	if m.readOnly {
		return roFilePerm
	}
	return filePerm
}

func (m *mountState) dirPerm() uint32 {
	if m.readOnly {
		return roDirPerm
	}
	return dirPerm
}
