package fusefs

import (
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// pageCache decides whether a read-only open of a record may use the
// kernel's page cache of the node it opens through, where that node lives
// across replacements of the record: a scratch node renamed onto a record
// name (scratch.go). A record's own node stands for one stored version
// instead, and may keep its pages (recordversion.go).
//
// The kernel keeps one page cache per node, and such a node lives across
// replacements (a commit through the mount, PHP's temp file and rename): a descriptor
// opened on the old file can read pages back into the cache after the
// replacement invalidated it, and later opens would then serve the old
// content.
//
// Invariant: every page the kernel holds for the node was read through a
// handle of the file `cached`, or through a caching handle still open
// (readers). A handle opened on another file than an open caching handle
// gets direct I/O: it neither reads nor fills pages that may hold the
// other file's content.
//
// Pages are kept across opens (KEEP_CACHE) only on a read-only mount. On a
// read-write mount every caching open drops the node's pages: with
// KEEP_CACHE, a record rewritten through the mount while another process
// kept reading it was still served old bytes in about 1 of 100 reads after
// the writer's close (integration/stalecache_test.go; 35% before this
// file). The likeliest cause is the kernel keeping pages across a direct
// I/O write, which updates the size but not the pages, so the old bytes
// survive under the new size; without KEEP_CACHE no case was seen.
//
// The kernel also cuts page-cache reads at the size it holds, which may be
// the old file's for up to the attribute timeout after a change made
// outside the mount (a PHP rewrite): a caching read would then return the
// new file cut short. So for attrTTL after an open first finds a new file
// on the node, opens get direct I/O, which reads to the file's real end.
type pageCache struct {
	mu      sync.Mutex
	cached  storedFile                 // the file the cached pages come from; zero: none known
	changed time.Time                  // when an open first found the node on cached
	readers map[*readHandle]storedFile // open handles that read through the page cache
}

// storedFile identifies one version of a record file: a replacement is a
// new inode, and an in-place change moves the ctime (which no one can set
// back), whatever it does to the size and the mtime. The zero value is no
// file.
type storedFile struct {
	dev, ino uint64
	size     int64
	mtimeNs  int64
	ctimeNs  int64
}

// unlinkedAttr describes the stored file as it was (a node's version,
// for fstat once the record is gone and no handle holds the file).
func (v storedFile) unlinkedAttr(out *fuse.Attr, perm uint32) syscall.Errno {
	setMemAttr(out, int(v.size), time.Unix(0, v.mtimeNs), perm)
	ctime := time.Unix(0, v.ctimeNs)
	out.SetTimes(nil, nil, &ctime)
	return 0
}

func storedFileOf(f *os.File) (storedFile, bool) {
	fi, err := f.Stat()
	if err != nil {
		return storedFile{}, false
	}
	return storedFileOfInfo(fi)
}

// storedFileOfInfo identifies the file fi describes (a stat of the
// stored record file, not of a view or buffer).
func storedFileOfInfo(fi os.FileInfo) (storedFile, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return storedFile{}, false
	}
	return storedFile{dev: uint64(st.Dev), ino: st.Ino, size: fi.Size(), mtimeNs: fi.ModTime().UnixNano(),
		ctimeNs: st.Ctim.Nano()}, true
}

// open registers h, a read-only handle of the record file f, and returns
// its FOPEN flags:
//   - an open caching handle reads another file, or f is new to the node
//     (less than attrTTL ago): DIRECT_IO (h is not registered: it leaves
//     the pages alone);
//   - the cached pages come from f, and keep (a read-only mount): KEEP_CACHE;
//   - else no cache flag: the kernel drops the node's pages at this open,
//     and from now on they come from f.
func (p *pageCache) open(h *readHandle, f *os.File, keep bool, now time.Time, attrTTL time.Duration) uint32 {
	file, ok := storedFileOf(f)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !ok {
		return fuse.FOPEN_DIRECT_IO | fuse.FOPEN_NOFLUSH
	}
	for _, other := range p.readers {
		if other != file {
			return fuse.FOPEN_DIRECT_IO | fuse.FOPEN_NOFLUSH
		}
	}
	if p.cached != file {
		p.cached, p.changed = file, now
	}
	if now.Sub(p.changed) < attrTTL {
		return fuse.FOPEN_DIRECT_IO | fuse.FOPEN_NOFLUSH
	}
	if p.readers == nil {
		p.readers = map[*readHandle]storedFile{}
	}
	p.readers[h] = file
	h.pages = p
	if keep {
		return fuse.FOPEN_KEEP_CACHE | fuse.FOPEN_NOFLUSH
	}
	return fuse.FOPEN_NOFLUSH
}

// release forgets h (Release of a caching handle).
func (p *pageCache) release(h *readHandle) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.readers, h)
}
