package fusefs

import (
	"github.com/hanwen/go-fuse/v2/fuse"
)

// rootAndOwnerFS is the allow_root mount option. allow_root is no kernel
// option: libfuse mounts with allow_other and then refuses, in the
// daemon, every request of a caller who is neither root nor the user the
// daemon runs as; go-fuse has no such check, so this wrapper is it, with
// libfuse's rule: requests on a descriptor already open (READ, WRITE,
// FLUSH, FSYNC, RELEASE, READDIR, ...) pass, whoever sends them (a
// descriptor handed on by an admitted process works), everything that
// looks up, opens, creates or changes a name is refused with EACCES.
type rootAndOwnerFS struct {
	fuse.RawFileSystem
	owner uint32 // the user the daemon runs as
}

var _ fuse.RawFileSystem = (*rootAndOwnerFS)(nil)

// admits reports whether the caller of a request is root or the owner.
func (f *rootAndOwnerFS) admits(h *fuse.InHeader) bool {
	return h.Caller.Uid == 0 || h.Caller.Uid == f.owner
}

// refused is the answer to a caller who is not admitted.
const refused = fuse.EACCES

func (f *rootAndOwnerFS) Lookup(cancel <-chan struct{}, h *fuse.InHeader, name string, out *fuse.EntryOut) fuse.Status {
	if !f.admits(h) {
		return refused
	}
	return f.RawFileSystem.Lookup(cancel, h, name, out)
}

func (f *rootAndOwnerFS) GetAttr(cancel <-chan struct{}, in *fuse.GetAttrIn, out *fuse.AttrOut) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.GetAttr(cancel, in, out)
}

func (f *rootAndOwnerFS) SetAttr(cancel <-chan struct{}, in *fuse.SetAttrIn, out *fuse.AttrOut) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.SetAttr(cancel, in, out)
}

func (f *rootAndOwnerFS) Statx(cancel <-chan struct{}, in *fuse.StatxIn, out *fuse.StatxOut) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.Statx(cancel, in, out)
}

func (f *rootAndOwnerFS) Access(cancel <-chan struct{}, in *fuse.AccessIn) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.Access(cancel, in)
}

func (f *rootAndOwnerFS) Readlink(cancel <-chan struct{}, h *fuse.InHeader) ([]byte, fuse.Status) {
	if !f.admits(h) {
		return nil, refused
	}
	return f.RawFileSystem.Readlink(cancel, h)
}

func (f *rootAndOwnerFS) Open(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.Open(cancel, in, out)
}

func (f *rootAndOwnerFS) OpenDir(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.OpenDir(cancel, in, out)
}

func (f *rootAndOwnerFS) Create(cancel <-chan struct{}, in *fuse.CreateIn, name string, out *fuse.CreateOut) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.Create(cancel, in, name, out)
}

func (f *rootAndOwnerFS) Tmpfile(cancel <-chan struct{}, in *fuse.CreateIn, out *fuse.CreateOut) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.Tmpfile(cancel, in, out)
}

func (f *rootAndOwnerFS) Mknod(cancel <-chan struct{}, in *fuse.MknodIn, name string, out *fuse.EntryOut) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.Mknod(cancel, in, name, out)
}

func (f *rootAndOwnerFS) Mkdir(cancel <-chan struct{}, in *fuse.MkdirIn, name string, out *fuse.EntryOut) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.Mkdir(cancel, in, name, out)
}

func (f *rootAndOwnerFS) Unlink(cancel <-chan struct{}, h *fuse.InHeader, name string) fuse.Status {
	if !f.admits(h) {
		return refused
	}
	return f.RawFileSystem.Unlink(cancel, h, name)
}

func (f *rootAndOwnerFS) Rmdir(cancel <-chan struct{}, h *fuse.InHeader, name string) fuse.Status {
	if !f.admits(h) {
		return refused
	}
	return f.RawFileSystem.Rmdir(cancel, h, name)
}

func (f *rootAndOwnerFS) Rename(cancel <-chan struct{}, in *fuse.RenameIn, oldName, newName string) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.Rename(cancel, in, oldName, newName)
}

func (f *rootAndOwnerFS) Link(cancel <-chan struct{}, in *fuse.LinkIn, name string, out *fuse.EntryOut) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.Link(cancel, in, name, out)
}

func (f *rootAndOwnerFS) Symlink(cancel <-chan struct{}, h *fuse.InHeader, target, name string, out *fuse.EntryOut) fuse.Status {
	if !f.admits(h) {
		return refused
	}
	return f.RawFileSystem.Symlink(cancel, h, target, name, out)
}

func (f *rootAndOwnerFS) GetXAttr(cancel <-chan struct{}, h *fuse.InHeader, attr string, dest []byte) (uint32, fuse.Status) {
	if !f.admits(h) {
		return 0, refused
	}
	return f.RawFileSystem.GetXAttr(cancel, h, attr, dest)
}

func (f *rootAndOwnerFS) ListXAttr(cancel <-chan struct{}, h *fuse.InHeader, dest []byte) (uint32, fuse.Status) {
	if !f.admits(h) {
		return 0, refused
	}
	return f.RawFileSystem.ListXAttr(cancel, h, dest)
}

func (f *rootAndOwnerFS) SetXAttr(cancel <-chan struct{}, in *fuse.SetXAttrIn, attr string, data []byte) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.SetXAttr(cancel, in, attr, data)
}

func (f *rootAndOwnerFS) RemoveXAttr(cancel <-chan struct{}, h *fuse.InHeader, attr string) fuse.Status {
	if !f.admits(h) {
		return refused
	}
	return f.RawFileSystem.RemoveXAttr(cancel, h, attr)
}

func (f *rootAndOwnerFS) StatFs(cancel <-chan struct{}, h *fuse.InHeader, out *fuse.StatfsOut) fuse.Status {
	if !f.admits(h) {
		return refused
	}
	return f.RawFileSystem.StatFs(cancel, h, out)
}

func (f *rootAndOwnerFS) Ioctl(cancel <-chan struct{}, in *fuse.IoctlIn, inbuf []byte, out *fuse.IoctlOut, outbuf []byte) fuse.Status {
	if !f.admits(&in.InHeader) {
		return refused
	}
	return f.RawFileSystem.Ioctl(cancel, in, inbuf, out, outbuf)
}
