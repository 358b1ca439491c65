package fusefs

import (
	"sync/atomic"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// mountFS is the raw file system of one mount: go-fuse's node bridge,
// plus what is answered for the mount as a whole whatever node a request
// names: STATFS (the backing file system's figures) and the shutdown gate
// (gate.go) in front of every request that opens or changes something.
type mountFS struct {
	fuse.RawFileSystem
	gate    *requestGate
	statDir string // the storage root: its file system's figures are the mount's
	noOpen  bool   // OPEN answered ENOSYS (see Open)
	noFlush bool   // a read-only mount: FLUSH answered ENOSYS too (see Flush)
	// writtenNodes is mountState.writtenNodes: with noOpen, a FLUSH commits
	// only through a node written to (see Flush).
	writtenNodes *atomic.Int64

	owners Ownership   // applied to every attribute sent (shown)
	trim   *forgetTrim // returns forgotten nodes' memory (memtrim.go); nil: never
}

var _ fuse.RawFileSystem = (*mountFS)(nil)

var shutdownStatus = fuse.Status(errShuttingDown)

// StatFs reports the storage root's file system (df, installers' disk
// space checks): the mount stores every byte there. The kernel asks with
// the node of the path given to statfs(2); the answer is the same for all.
func (f *mountFS) StatFs(cancel <-chan struct{}, in *fuse.InHeader, out *fuse.StatfsOut) fuse.Status {
	var st unix.Statfs_t
	if err := unix.Statfs(f.statDir, &st); err != nil {
		return fuse.ToStatus(err)
	}
	out.Blocks, out.Bfree, out.Bavail = st.Blocks, st.Bfree, st.Bavail
	out.Files, out.Ffree = st.Files, st.Ffree
	out.Bsize, out.Frsize = uint32(st.Bsize), uint32(st.Frsize)
	out.NameLen = uint32(st.Namelen)
	return fuse.OK
}

// Lookup: an entry given volatileTimeout is sent with no lifetime at all,
// so the kernel looks the name up again at its next use (go-fuse would
// replace a zero by the mount's default; the smallest non-zero lifetime
// still lasts one or two clock ticks in the kernel).
func (f *mountFS) Lookup(cancel <-chan struct{}, h *fuse.InHeader, name string, out *fuse.EntryOut) fuse.Status {
	st := f.shown(f.RawFileSystem.Lookup(cancel, h, name, out), &out.Attr)
	if out.EntryValid == 0 && out.EntryValidNsec == uint32(volatileTimeout) {
		out.EntryValidNsec = 0
	}
	return st
}

// Forget counts for the memory trim (memtrim.go).
func (f *mountFS) Forget(nodeid, nlookup uint64) {
	f.RawFileSystem.Forget(nodeid, nlookup)
	if f.trim != nil {
		f.trim.forgot()
	}
}

// shown applies the mount's Ownership to the attributes of a successful
// answer. Every method whose answer carries attributes passes them
// through here (or applyDirPlus, applyStatx).
func (f *mountFS) shown(st fuse.Status, attr *fuse.Attr) fuse.Status {
	if st == fuse.OK {
		f.owners.apply(attr)
	}
	return st
}

func (f *mountFS) GetAttr(cancel <-chan struct{}, in *fuse.GetAttrIn, out *fuse.AttrOut) fuse.Status {
	return f.shown(f.RawFileSystem.GetAttr(cancel, in, out), &out.Attr)
}

func (f *mountFS) Statx(cancel <-chan struct{}, in *fuse.StatxIn, out *fuse.StatxOut) fuse.Status {
	st := f.RawFileSystem.Statx(cancel, in, out)
	if st == fuse.OK {
		f.owners.applyStatx(&out.Statx)
	}
	return st
}

func (f *mountFS) ReadDirPlus(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	st := f.RawFileSystem.ReadDirPlus(cancel, in, out)
	if !f.owners.isZero() {
		f.owners.applyDirPlus(out.Bytes())
	}
	return st
}

// gated runs op when the gate admits a request of kind k.
func (f *mountFS) gated(k requestKind, op func() fuse.Status) fuse.Status {
	if !f.gate.enter(k) {
		return shutdownStatus
	}
	defer f.gate.leave()
	return op()
}

// Open: a read-only mount (and one with Config.NoOpen) answers ENOSYS,
// which the kernel takes, for the whole connection and at once, as "opens
// need no server" (fc->no_open): from then on it sends no OPEN nor RELEASE
// for any file, keeps each file's pages across opens as with
// FOPEN_KEEP_CACHE, and sends READs, WRITEs and FLUSHes without a handle,
// which the nodes serve (recordNode.Read, viewFile.Read, errorsFile.Read;
// nodewrites.go). A warm file then costs no request at all on a read-only
// mount, its FLUSH on a writable one. (Directories are opened with
// OPENDIR, which is unaffected.)
func (f *mountFS) Open(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	if f.noOpen {
		return fuse.ENOSYS
	}
	return f.gated(startsWork, func() fuse.Status { return f.RawFileSystem.Open(cancel, in, out) })
}

func (f *mountFS) OpenDir(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	return f.gated(startsWork, func() fuse.Status { return f.RawFileSystem.OpenDir(cancel, in, out) })
}

func (f *mountFS) Create(cancel <-chan struct{}, in *fuse.CreateIn, name string, out *fuse.CreateOut) fuse.Status {
	return f.gated(startsWork, func() fuse.Status { return f.shown(f.RawFileSystem.Create(cancel, in, name, out), &out.Attr) })
}

func (f *mountFS) Tmpfile(cancel <-chan struct{}, in *fuse.CreateIn, out *fuse.CreateOut) fuse.Status {
	return f.gated(startsWork, func() fuse.Status { return f.shown(f.RawFileSystem.Tmpfile(cancel, in, out), &out.Attr) })
}

func (f *mountFS) Mknod(cancel <-chan struct{}, in *fuse.MknodIn, name string, out *fuse.EntryOut) fuse.Status {
	return f.gated(startsWork, func() fuse.Status { return f.shown(f.RawFileSystem.Mknod(cancel, in, name, out), &out.Attr) })
}

func (f *mountFS) Mkdir(cancel <-chan struct{}, in *fuse.MkdirIn, name string, out *fuse.EntryOut) fuse.Status {
	return f.gated(startsWork, func() fuse.Status { return f.shown(f.RawFileSystem.Mkdir(cancel, in, name, out), &out.Attr) })
}

func (f *mountFS) Link(cancel <-chan struct{}, in *fuse.LinkIn, name string, out *fuse.EntryOut) fuse.Status {
	return f.gated(startsWork, func() fuse.Status { return f.shown(f.RawFileSystem.Link(cancel, in, name, out), &out.Attr) })
}

func (f *mountFS) Symlink(cancel <-chan struct{}, h *fuse.InHeader, target, name string, out *fuse.EntryOut) fuse.Status {
	return f.gated(startsWork, func() fuse.Status { return f.shown(f.RawFileSystem.Symlink(cancel, h, target, name, out), &out.Attr) })
}

// Write: without OPEN (noOpen) a write to a file nothing may be written
// to (a view, .storhfs/errors) is not refused at open; go-fuse answers it
// ENOTSUP or ENOSYS (the node takes no writes), which is EROFS here, as the open
// for writing is with handles.
func (f *mountFS) Write(cancel <-chan struct{}, in *fuse.WriteIn, data []byte) (n uint32, st fuse.Status) {
	f.nameOutsider(&in.Caller, in.WriteFlags&fuse.WRITE_CACHE == 0)
	st = f.gated(finishesWork, func() fuse.Status {
		n, st = f.RawFileSystem.Write(cancel, in, data)
		return f.writeStatus(st)
	})
	return n, st
}

func (f *mountFS) Writev(cancel <-chan struct{}, in *fuse.WriteIn, data [][]byte) (n uint32, st fuse.Status) {
	f.nameOutsider(&in.Caller, in.WriteFlags&fuse.WRITE_CACHE == 0)
	st = f.gated(finishesWork, func() fuse.Status {
		n, st = f.RawFileSystem.Writev(cancel, in, data)
		return f.writeStatus(st)
	})
	return n, st
}

// nameOutsider marks a request of a process the kernel could not name to
// the mount (pid 0, not the kernel's own write-back: fromProcess) with
// outsiderPid, when writes have no handle and ownership goes by process
// (nodewrites.go).
func (f *mountFS) nameOutsider(c *fuse.Caller, fromProcess bool) {
	if f.noOpen && c.Pid == 0 && fromProcess {
		c.Pid = outsiderPid
	}
}

func (f *mountFS) writeStatus(st fuse.Status) fuse.Status {
	if f.noOpen && (st == fuse.ENOTSUP || st == fuse.ENOSYS) {
		return fuse.EROFS
	}
	return st
}

func (f *mountFS) CopyFileRange(cancel <-chan struct{}, in *fuse.CopyFileRangeIn) (n uint32, st fuse.Status) {
	st = f.gated(finishesWork, func() fuse.Status {
		n, st = f.RawFileSystem.CopyFileRange(cancel, in)
		return st
	})
	return n, st
}

// Flush: without OPEN the kernel would still send a FLUSH at every
// close(2); ENOSYS stops that too, for the connection (fc->no_flush).
// Nothing is ever written on a read-only mount, so there is nothing to
// commit at close.
//
// A writable mount without OPEN (noOpen) gets a FLUSH at every close(2),
// with no handle: it commits the node writer of the node closed, if the
// closing process owns one (nodewrites.go, flushThrough). While no node
// in the mount has a writer, the close is a reader's and is answered
// without the node tree: no lookup, lock or node memory per close. An
// owner's close always finds its writer counted: the WRITE or truncation
// that made it was answered before that close began.
func (f *mountFS) Flush(cancel <-chan struct{}, in *fuse.FlushIn) fuse.Status {
	if f.noFlush {
		return fuse.ENOSYS
	}
	if f.noOpen && in.Fh == 0 && f.writtenNodes.Load() == 0 {
		return fuse.OK
	}
	f.nameOutsider(&in.Caller, true)
	return f.gated(finishesWork, func() fuse.Status { return f.RawFileSystem.Flush(cancel, in) })
}

func (f *mountFS) Fsync(cancel <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	f.nameOutsider(&in.Caller, true)
	return f.gated(finishesWork, func() fuse.Status { return f.RawFileSystem.Fsync(cancel, in) })
}

func (f *mountFS) FsyncDir(cancel <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	return f.gated(finishesWork, func() fuse.Status { return f.RawFileSystem.FsyncDir(cancel, in) })
}

func (f *mountFS) Fallocate(cancel <-chan struct{}, in *fuse.FallocateIn) fuse.Status {
	return f.gated(finishesWork, func() fuse.Status { return f.RawFileSystem.Fallocate(cancel, in) })
}

func (f *mountFS) SetAttr(cancel <-chan struct{}, in *fuse.SetAttrIn, out *fuse.AttrOut) fuse.Status {
	f.nameOutsider(&in.Caller, true)
	return f.gated(finishesWork, func() fuse.Status { return f.shown(f.RawFileSystem.SetAttr(cancel, in, out), &out.Attr) })
}

func (f *mountFS) Rename(cancel <-chan struct{}, in *fuse.RenameIn, oldName, newName string) fuse.Status {
	return f.gated(finishesWork, func() fuse.Status { return f.RawFileSystem.Rename(cancel, in, oldName, newName) })
}

func (f *mountFS) Unlink(cancel <-chan struct{}, h *fuse.InHeader, name string) fuse.Status {
	return f.gated(finishesWork, func() fuse.Status { return f.RawFileSystem.Unlink(cancel, h, name) })
}

func (f *mountFS) Rmdir(cancel <-chan struct{}, h *fuse.InHeader, name string) fuse.Status {
	return f.gated(finishesWork, func() fuse.Status { return f.RawFileSystem.Rmdir(cancel, h, name) })
}

func (f *mountFS) SetXAttr(cancel <-chan struct{}, in *fuse.SetXAttrIn, attr string, data []byte) fuse.Status {
	return f.gated(finishesWork, func() fuse.Status { return f.RawFileSystem.SetXAttr(cancel, in, attr, data) })
}

func (f *mountFS) RemoveXAttr(cancel <-chan struct{}, h *fuse.InHeader, attr string) fuse.Status {
	return f.gated(finishesWork, func() fuse.Status { return f.RawFileSystem.RemoveXAttr(cancel, h, attr) })
}
