package seglog

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/zeebo/xxh3"

	"github.com/storhfs/storhfs/core/fsutil"
)

// Segment files a Snapshot holds open.
//
// A snapshot opens each listed segment once, while replaying it, and
// keeps the descriptor until Snapshot.Close: later reads (records view,
// segment views, Get) use it up to the snapshot's limit, so a compaction
// that removes or replaces the file meanwhile does not affect them. A
// snapshot extended from another (SnapshotAfter) shares the descriptors of
// the segments it reuses instead of opening them again (heldFile): a mount
// keeps many snapshots of a log alive at once (every view node holds one),
// and one descriptor per segment per snapshot ran it out of descriptors.
//
// At most maxHeldSegments descriptors are kept per snapshot. Segments past
// that bound are reopened by name for each read; a reopened file whose
// inode differs from the replayed one fails with *SegmentChangedError, a
// removed one with *SegmentOpenError.
//
// Bytes below the limit change in place only where storh rewrites them:
// a last valid line without "\n" (docs/format/segmentedlog.md §2.6) is made invalid by the next
// append, truncated by recovery and overwritten. Such a line's offset and
// xxh3 are kept and checked when it is read again.
const maxHeldSegments = 1024

// heldSegments is the snapshot's open files, replayed inodes and
// unterminated last lines, by segment id. Written only while the snapshot
// is built; then read-only (Close aside).
type heldSegments struct {
	files  map[int32]*heldFile
	inodes map[int32]uint64
	tails  map[int32]segTail

	closeOnce sync.Once
}

// segTail is an unterminated last line: its offset and xxh3.Hash.
type segTail struct {
	off int64
	sum uint64
}

// heldFile is a segment descriptor shared by the snapshots holding it;
// the last to release it closes it.
type heldFile struct {
	*os.File
	refs atomic.Int32
}

func newHeldFile(f *os.File) *heldFile {
	h := &heldFile{File: f}
	h.refs.Store(1)
	return h
}

// share takes another reference; false once the file was closed.
func (h *heldFile) share() bool {
	for {
		n := h.refs.Load()
		if n <= 0 {
			return false
		}
		if h.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (h *heldFile) release() {
	if h.refs.Add(-1) == 0 {
		h.File.Close()
	}
}

func newHeldSegments() *heldSegments {
	return &heldSegments{files: map[int32]*heldFile{}, inodes: map[int32]uint64{}, tails: map[int32]segTail{}}
}

// shared returns seg's held descriptor with a reference for the caller, or
// nil when h holds none for it. h is a built snapshot's (read-only) and
// open: the caller's snapshot is extended from it.
func (h *heldSegments) shared(seg int32) *heldFile {
	if f, ok := h.files[seg]; ok && f.share() {
		return f
	}
	return nil
}

// keep records the replay of seg from f and keeps f open within the
// bound; it reports whether f was kept (else the caller releases it).
func (h *heldSegments) keep(seg int32, f *heldFile, res segReplay) bool {
	h.inodes[seg] = res.ino
	if res.unterminated {
		h.tails[seg] = segTail{off: res.tailOff, sum: res.tailSum}
	} else {
		delete(h.tails, seg)
	}
	if old, ok := h.files[seg]; ok {
		old.release() // an entry listed twice: keep the latest replay's file
		delete(h.files, seg)
	}
	if len(h.files) >= maxHeldSegments {
		return false
	}
	h.files[seg] = f
	return true
}

func (h *heldSegments) close() {
	h.closeOnce.Do(func() {
		for _, f := range h.files {
			f.release()
		}
	})
}

// SegmentChangedError reports segment bytes below a snapshot's read limit
// that are no longer those the snapshot replayed (rewritten in place, or
// the file replaced). Reading stops there rather than return other bytes;
// it unwraps to EIO.
type SegmentChangedError struct {
	File   string
	Offset int64
}

func (e *SegmentChangedError) Error() string {
	return fmt.Sprintf("segment %s changed under the snapshot at offset %d", e.File, e.Offset)
}

func (e *SegmentChangedError) Unwrap() error { return syscall.EIO }

func noRelease() {}

// openSegment returns segment seg (file) for reading and the function
// that releases it: the snapshot's held file, else the file opened by
// name (checked against the replayed inode when the view is a snapshot's).
func (v *view) openSegment(file string, seg int32) (*os.File, func(), error) {
	if v.held != nil {
		if f, ok := v.held.files[seg]; ok {
			return f.File, noRelease, nil
		}
	}
	f, err := fsutil.OpenFile(v.segDir+"/"+file, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, &SegmentOpenError{File: file, Err: err}
	}
	if v.held != nil {
		if ino, ok := v.held.inodes[seg]; ok && ino != 0 && inodeOf(f) != ino {
			f.Close()
			return nil, nil, &SegmentChangedError{File: file}
		}
	}
	return f, func() { f.Close() }, nil
}

// willNeed asks the kernel to start reading segment seg into the page
// cache, when the view holds it open (a snapshot); a hint, so it fails
// silently.
func (v *view) willNeed(seg int32) {
	if v.held == nil {
		return
	}
	if f, ok := v.held.files[seg]; ok {
		fsutil.AdviseWillNeed(int(f.Fd()))
	}
}

// heldLines reads the lines of one segment of a snapshot, below its read
// limit, failing with *SegmentChangedError where the bytes are no longer
// those the snapshot replayed.
type heldLines struct {
	file    string
	sc      *lineScanner
	release func()
	tail    segTail
	hasTail bool // the segment's last line is unterminated: check it
}

func (v *view) openLines(file string, seg int32) (*heldLines, error) {
	f, release, err := v.openSegment(file, seg)
	if err != nil {
		return nil, err
	}
	h := &heldLines{file: file, sc: newLineScanner(f, 0, v.readLimit(seg), v.buf), release: release}
	if v.held != nil {
		h.tail, h.hasTail = v.held.tails[seg]
	}
	return h, nil
}

// next returns the next line, its payload (framing stripped) and offset;
// io.EOF at the end.
func (h *heldLines) next() (line, payload []byte, off int64, err error) {
	line, off, ok := h.sc.line()
	if !ok {
		if err := h.sc.Err(); err != nil {
			return nil, nil, 0, err
		}
		return nil, nil, 0, io.EOF
	}
	// The replay validated every line below the read limit with the fast
	// validator: a line failing it now was rewritten under the snapshot.
	payload, err = frameFast(line)
	if err != nil || (h.hasTail && off == h.tail.off && xxh3.Hash(line) != h.tail.sum) {
		return nil, nil, off, &SegmentChangedError{File: h.file, Offset: off}
	}
	return line, payload, off, nil
}
