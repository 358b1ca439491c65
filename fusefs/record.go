package fusefs

import (
	"context"
	"errors"
	iofs "io/fs"
	"sync/atomic"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// recordNode is one record file <id>.jsonc as one stored version of it
// (recordversion.go). Its attributes come from the store (or an open write
// buffer), so any number of nodes for the same id agree on them.
type recordNode struct {
	fs.Inode
	c  *collectionNode
	id string
	// version is the stored file this node was looked up as; zero: none
	// (a record being created or written). Fixed for the node's life.
	version storedFile
	// retired: something but version's content or attributes may have
	// reached the kernel through this node; it never keeps pages again.
	retired atomic.Bool
}

var (
	_ fs.NodeGetattrer = (*recordNode)(nil)
	_ fs.NodeSetattrer = (*recordNode)(nil)
	_ fs.NodeOpener    = (*recordNode)(nil)
	_ fs.NodeReader    = (*recordNode)(nil)
	_ fs.NodeWriter    = (*recordNode)(nil)
	_ fs.NodeFlusher   = (*recordNode)(nil)
	_ fs.NodeFsyncer   = (*recordNode)(nil)
)

// Getattr describes the record, and retires the node when it reports
// other attributes than its version's: the kernel's size of the node is no
// longer the version's. fstat on a descriptor whose record is gone
// (removed since the open) describes what the descriptor holds, with no
// link, as a local file system does.
func (r *recordNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	v, errno := r.c.storedAttrOut(r.id, out)
	if f == nil && errno == syscall.ENOENT && r.c.m.noOpen {
		// Without handles (nodewrites.go) a descriptor holds what was
		// written through the node, else the version it was looked up as.
		// (A stat by path reaches a removed record's node only until the
		// watcher's invalidation lands.)
		if w := r.c.nodeWriterOf(r.EmbeddedInode()); w != nil {
			f = w.h
		} else if r.version != (storedFile{}) {
			f = r.version
		}
	}
	if h, ok := f.(unlinkedDescriptor); ok && errno == syscall.ENOENT {
		r.retire()
		errno = h.unlinkedAttr(&out.Attr, r.c.m.filePerm())
		out.Nlink = 0
		out.SetTimeout(volatileTimeout)
		return errno
	}
	if errno == 0 && v != r.version {
		r.retire()
	}
	return errno
}

// unlinkedDescriptor is an open handle that can describe itself once its
// record's name is gone.
type unlinkedDescriptor interface {
	unlinkedAttr(out *fuse.Attr, perm uint32) syscall.Errno
}

var (
	_ unlinkedDescriptor = (*writeHandle)(nil)
	_ unlinkedDescriptor = (*readHandle)(nil)
	_ unlinkedDescriptor = (*bufferReadHandle)(nil)
	_ unlinkedDescriptor = storedFile{}
)

// Open: read-only opens of the node's version keep the kernel's pages
// across opens (readFlags); every other open retires the node. Opens for
// writing get a private buffer committed on flush/fsync, with direct I/O
// so rejected content never lands in the page cache.
func (r *recordNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_ACCMODE != syscall.O_RDONLY {
		r.retire()
	}
	fh, fuseFlags, errno := r.c.openRecord(r.id, flags, r)
	if errno == 0 && fuseFlags&fuse.FOPEN_KEEP_CACHE == 0 {
		r.retire()
	}
	return fh, fuseFlags, errno
}

// Read serves a READ through the handle the open gave, or, without one
// (the mount answers no OPEN: mountstate.go, noOpen), from the node's
// uncommitted writes or the stored record file itself, opened for this
// read alone: the kernel keeps the pages, so a READ comes only for what it
// does not hold.
func (r *recordNode) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if h, ok := f.(fs.FileReader); ok {
		return h.Read(ctx, dest, off)
	}
	v := r.version
	if r.retired.Load() {
		// The kernel's size of the node is no longer the version's: it
		// asks again (AUTO_INVAL_DATA) once the retirement's invalidation
		// lands, and the stored file is read as it is.
		v = storedFile{}
	}
	return r.c.readThrough(r.EmbeddedInode(), r.id, v, dest, off)
}

// Write, Flush and Fsync go to the handle the open gave, or, without one,
// to the node's buffer (nodewrites.go).
func (r *recordNode) Write(ctx context.Context, f fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	if h, ok := f.(fs.FileWriter); ok {
		return h.Write(ctx, data, off)
	}
	if r.c.m.readOnly {
		return 0, syscall.EROFS
	}
	r.retire() // the kernel's pages now hold what was written
	return r.c.writeThrough(ctx, r.EmbeddedInode(), r.id, data, off)
}

func (r *recordNode) Flush(ctx context.Context, f fs.FileHandle) syscall.Errno {
	return r.c.flushThrough(ctx, r.EmbeddedInode(), f)
}

func (r *recordNode) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	return r.c.fsyncThrough(ctx, r.EmbeddedInode(), f, flags)
}

// readStored reads record id's stored file at off for a node of version v
// (zero: none, or one the kernel no longer sizes by) that the kernel sent
// the READ through without a handle, so with v's size. Another file now
// stored is read when it is no larger: a short read makes the kernel take
// its size. A larger one would be cut at v's size, so the read fails with
// ESTALE instead: no reader gets a record cut short. Either way the node is
// retired (retire), and the next open looks the record up again.
func (c *collectionNode) readStored(id string, v storedFile, retire func(), dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	s, errno := c.store()
	if errno != 0 {
		return nil, errno
	}
	f, err := s.OpenRecord(id)
	if err != nil {
		c.m.symlinks.note(err)
		return nil, errnoOf(err, syscall.EIO)
	}
	defer f.Close()
	if v != (storedFile{}) {
		if now, ok := storedFileOf(f); !ok || now != v {
			retire()
			if !ok || now.size > v.size {
				return nil, syscall.ESTALE
			}
		}
	}
	return (&readHandle{f: f}).Read(context.Background(), dest, off)
}

// openRecord opens record id through a node whose pages follow pages.
func (c *collectionNode) openRecord(id string, flags uint32, pages pagePolicy) (fs.FileHandle, uint32, syscall.Errno) {
	s, errno := c.store()
	if errno != 0 {
		return nil, 0, errno
	}
	if flags&syscall.O_ACCMODE != syscall.O_RDONLY {
		if c.m.readOnly {
			return nil, 0, syscall.EROFS
		}
		return c.openWriter(id, s, flags&syscall.O_TRUNC != 0), fuse.FOPEN_DIRECT_IO, 0
	}
	f, err := s.OpenRecord(id)
	if errors.Is(err, iofs.ErrNotExist) {
		// A new record still being written: show the writer's buffer.
		if buf, errno := c.shownBuffer(id); errno != 0 {
			return nil, 0, errno
		} else if buf != nil {
			return &bufferReadHandle{buf: buf}, fuse.FOPEN_DIRECT_IO, 0
		}
	}
	if err != nil {
		c.m.symlinks.note(err)
		return nil, 0, errnoOf(err, syscall.EIO)
	}
	// NOFLUSH: closing a read-only descriptor has nothing to commit.
	h := &readHandle{f: f}
	if _, pending := c.pendingSize(id); pending {
		// The record's size is shown from a writer's unsaved buffer
		// (recordAttr), so the kernel's size is not this file's: direct
		// I/O reads the stored file to its real end.
		return h, fuse.FOPEN_DIRECT_IO | fuse.FOPEN_NOFLUSH, 0
	}
	return h, pages.readFlags(c.m, h, f), 0
}

// Setattr: ftruncate edits that descriptor's buffer; truncate(2) by path
// edits every open buffer of the record or, with none, commits the cut
// record; times are applied (after the commit when a buffer is pending);
// mode and owner are accepted and ignored.
func (r *recordNode) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	r.retire() // the reply gives the kernel new attributes for this node
	return r.c.setRecordAttr(ctx, r.EmbeddedInode(), r.id, f, in, out)
}

// setRecordAttr changes record id's attributes for a SETATTR through node,
// with the handle f (nil: none).
func (c *collectionNode) setRecordAttr(ctx context.Context, node *fs.Inode, id string, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if c.m.readOnly {
		return syscall.EROFS
	}
	s, errno := c.store()
	if errno != 0 {
		return errno
	}
	var handles []*writeHandle
	switch h := f.(type) {
	case *writeHandle:
		handles = []*writeHandle{h}
	case *scratchHandle: // a scratch file renamed onto this record
		w, errno := h.recordWriter(id)
		if errno != 0 {
			return errno
		}
		handles = []*writeHandle{w}
	default:
		handles = c.openWriters(id)
	}
	// Without a handle this is truncate(2) by path: it applies to every
	// open buffer, or else commits the cut record. (open(O_TRUNC) does not
	// come here: with ATOMIC_O_TRUNC the kernel passes the flag to OPEN.)
	// When the kernel sends no OPEN, an ftruncate names no handle either,
	// and open(O_TRUNC) comes as a truncation to 0 indistinguishable from
	// truncate(2) to 0: both cut the node's buffer (nodewrites.go).
	if size, ok := in.GetSize(); ok {
		if size > maxFileSize {
			return syscall.EFBIG
		}
		if _, ftruncate := in.GetFh(); f == nil && c.m.noOpen && (ftruncate || size == 0) {
			_, errno := c.changeThrough(ctx, node, id, func(h *writeHandle) syscall.Errno { return h.truncate(int(size)) })
			if errno != 0 {
				return errno
			}
		} else if errno := c.truncateRecord(s, id, handles, int(size)); errno != 0 {
			return errno
		}
	}
	if times, ok := timesOf(in); ok {
		applied := false
		for _, h := range handles {
			applied = h.setTimes(times) || applied
		}
		if !applied {
			err := s.SetRecordTimes(id, times.atime, times.mtime)
			c.mutations.Add(1)
			if err != nil {
				return errnoOf(err, syscall.EIO)
			}
			c.noteSelfChange(s, id)
		}
	}
	return c.recordAttrOut(id, out)
}

// truncateRecord cuts the buffers of handles to size or, with none, commits
// the stored record cut (truncateStored).
func (c *collectionNode) truncateRecord(s RecordStore, id string, handles []*writeHandle, size int) syscall.Errno {
	for _, h := range handles {
		if errno := h.truncate(size); errno != 0 {
			return errno
		}
	}
	if len(handles) == 0 {
		return c.truncateStored(s, id, size)
	}
	return 0
}

// truncateStored commits the stored record cut (or zero-extended) to size,
// through a buffer charged to the mount's budget like any write. The
// record is read under commitMu, so no commit of this mount falls between
// the read and the put and is overwritten by the old content.
func (c *collectionNode) truncateStored(s RecordStore, id string, size int) syscall.Errno {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	f, err := s.OpenRecord(id)
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	buf := memBuf{budget: c.m.budget}
	defer buf.free()
	errno := buf.setFrom(f)
	f.Close()
	if errno != 0 || buf.size() == size {
		return errno
	}
	if errno := buf.resize(size); errno != 0 {
		return errno
	}
	errno, err = buf.commit(func(content []byte) (syscall.Errno, error) {
		return c.tryPutLocked(s, id, content, nil, false)
	})
	if err != nil {
		c.reportFailure(id, errno, failureReason(id, err))
	}
	return errno
}
