// Attributes of a collection and of its records.

package fusefs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/internal/fuseattr"
)

func (c *collectionNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	fi, err := c.m.catalog.Stat(c.rel)
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	fuseattr.FromInfo(&out.Attr, fi, c.m.dirPerm())
	return 0
}

// Setattr on the directory (touch, chmod) is accepted and ignored.
func (c *collectionNode) Setattr(ctx context.Context, f gofs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if c.m.readOnly {
		return syscall.EROFS
	}
	return c.Getattr(ctx, f, out)
}

// recordAttr describes record id: an open write buffer holding changes not
// yet committed wins (what a writer sees before close), else the stored
// file, re-read each time so outside changes show up once the kernel's 1 s
// attribute cache expires, else the buffer of a handle that created the
// record and is still open (for a lookup, only while it names the record:
// handleView.named). volatile reports the buffer cases: the kernel must
// not cache those attributes, since the buffer may never be stored.
// pre, when not nil, is the stored file's stat, taken ahead by a listing.
// v is the stored file described (zero in the buffer cases).
func (c *collectionNode) recordAttr(id string, out *fuse.Attr, pre *recordStat, lookup bool) (v storedFile, volatile bool, errno syscall.Errno) {
	if size, ok := c.pendingSize(id); ok {
		setMemAttr(out, size, time.Now(), c.m.filePerm())
		return storedFile{}, true, 0
	}
	s, errno := c.store()
	if errno != 0 {
		return storedFile{}, false, errno
	}
	var fi os.FileInfo
	var err error
	if pre != nil {
		fi, err = pre.fi, pre.err
	} else {
		fi, err = s.StatRecord(id)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if h := c.createdWriter(id); h != nil {
			if v := h.shown(); !lookup || v.named() {
				setMemAttr(out, v.size, time.Now(), c.m.filePerm())
				return storedFile{}, true, 0
			}
		}
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !c.m.symlinks.note(err) {
			c.m.log.Printf("stat %s/%s: %v", c.rel, id, err)
		}
		return storedFile{}, false, errnoOf(err, syscall.EIO)
	}
	fuseattr.FromInfo(out, fi, c.m.filePerm())
	v, _ = storedFileOfInfo(fi)
	return v, false, 0
}

// volatileTimeout is the attribute lifetime of uncommitted content: zero
// would mean "the mount's default", so use the smallest non-zero value.
const volatileTimeout = time.Nanosecond

// recordEntry describes record id for a lookup or create. Uncommitted
// content also gets a short-lived name: a new record that is never stored
// must vanish from the kernel's cache once its last writer is gone.
//
// A stored record of a collection the watcher fully covers is cached for
// the long timeout: the watcher invalidates it when it changes, and the
// mount's own changes invalidate it themselves.
func (c *collectionNode) recordEntry(id string, out *fuse.EntryOut, pre *recordStat) (storedFile, syscall.Errno) {
	v, volatile, errno := c.recordAttr(id, &out.Attr, pre, true)
	switch long := c.m.coverage.cacheTimeout(c.rel); {
	case volatile:
		out.SetAttrTimeout(volatileTimeout)
		out.SetEntryTimeout(volatileTimeout)
	case errno == 0 && long > 0:
		out.SetAttrTimeout(long)
		out.SetEntryTimeout(long)
	}
	return v, errno
}

func (c *collectionNode) recordAttrOut(id string, out *fuse.AttrOut) syscall.Errno {
	_, volatile, errno := c.recordAttr(id, &out.Attr, nil, false)
	if volatile {
		out.SetTimeout(volatileTimeout)
	}
	return errno
}

// storedAttrOut is recordAttrOut for the record's own node, whose stored
// attributes are cached long like its entry (recordEntry). It returns the
// stored version described (zero: a buffer's attributes).
func (c *collectionNode) storedAttrOut(id string, out *fuse.AttrOut) (storedFile, syscall.Errno) {
	v, volatile, errno := c.recordAttr(id, &out.Attr, nil, false)
	switch long := c.m.coverage.cacheTimeout(c.rel); {
	case volatile:
		out.SetTimeout(volatileTimeout)
	case errno == 0 && long > 0:
		out.SetTimeout(long)
	}
	return v, errno
}
