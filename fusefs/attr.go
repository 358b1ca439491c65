package fusefs

import (
	"os"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/internal/fuseattr"
)

// Permission bits shown for everything (internal/fuseattr).
const (
	filePerm   = fuseattr.FilePerm
	dirPerm    = fuseattr.DirPerm
	roFilePerm = fuseattr.ROFilePerm
	roDirPerm  = fuseattr.RODirPerm
)

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
