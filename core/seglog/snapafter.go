package seglog

import (
	"bytes"
	"os"

	"github.com/zeebo/xxh3"

	"github.com/storhfs/storhfs/core/fsutil"
)

// Incremental snapshots (Reader.SnapshotAfter).
//
// A snapshot's replay is a function of its manifest's segments, in order,
// and of each one's bytes up to its first invalid line. When the new
// manifest lists prev's segments first, in the same order, as the same
// files still holding the valid prefixes prev replayed, a full replay
// would go through exactly prev's replay on the way: so the new snapshot
// starts from a copy of prev's state and replays only the bytes after
// each reused valid prefix, then the segments prev did not list.
//
// The copy is what makes this cheap for the common log: a sequential
// state is a few bytes, per-segment stats a few ids. A full state index
// (a log with overwrites or deletes) is copied whole, which is still far
// cheaper than reading and checksumming every line again.
//
// Anything else replays in full (snapshotOf), among it:
//   - the manifest no longer starts with prev's segments (compaction,
//     retention, a replaced manifest) or lists a file twice;
//   - a reused file is another file (device, inode), shorter than prev's
//     valid prefix, or the prefix's last tailCheck bytes changed (a
//     rewrite in place, which storh never does below a "\n");
//   - a segment that others follow in prev gained a valid line (it would
//     come before lines prev already applied), or was missing and is now
//     there, or was there and is now missing;
//   - prev's last valid line of a segment had no "\n" and the file is not
//     exactly as prev read it (storh's next append turns that line into an
//     invalid one, shrinking the valid prefix: docs/format/segmentedlog.md
//     §2.7, §9);
//   - a sequential state breaks on the new lines (the full index needs
//     every earlier line again).

// tailCheck is how many bytes before a segment's valid end must be
// unchanged for SnapshotAfter to resume there.
const tailCheck = 64

// readTail is the last (up to tailCheck) bytes before end in f, nil when
// they cannot be read (the segment then replays in full next time).
func readTail(f *os.File, end int64) []byte {
	tail := make([]byte, min(end, tailCheck))
	if _, err := f.ReadAt(tail, end-int64(len(tail))); err != nil {
		return nil
	}
	return tail
}

// snapshotAfter is m's snapshot, continued from prev when it can be.
func (r *Reader) snapshotAfter(prev *Snapshot, m *manifest) (*Snapshot, bool, error) {
	if prev != nil && prev.v.segDir == r.dir+"/"+segmentsDirName {
		if s, vanished, ok := extend(prev, m); ok {
			return s, vanished, nil
		}
	}
	return r.snapshotOf(m)
}

// extend builds m's snapshot on copies of prev's replay; ok is false when
// that would not give what a full replay gives (the caller then replays
// in full; nothing extend opened stays open).
func extend(prev *Snapshot, m *manifest) (s *Snapshot, vanished, ok bool) {
	entries := m.segments()
	if len(entries) < len(prev.replays) || !distinctFiles(entries) {
		return nil, false, false
	}
	s = newSnapshot(prev.v.segDir, m, prev.v.segs.clone(), prev.v.state.clone())
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	buf := make([]byte, scanBufSize)
	last := len(prev.replays) - 1
	for i, e := range entries {
		seg := s.v.segs.id(e.file)
		var old *segReplay
		if i <= last {
			if e.file != prev.segments[i].File {
				return nil, false, false
			}
			old = &prev.replays[i]
		}
		f, res, ok := s.resume(e.file, seg, old, prev.v.held, i < last, buf)
		if !ok || s.v.state.broken {
			if f != nil {
				f.release()
			}
			return nil, false, false
		}
		vanished = s.add(e.file, seg, f, res) || vanished
	}
	return s, vanished, true
}

// distinctFiles reports whether no file is listed twice.
func distinctFiles(entries []*segEntry) bool {
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if seen[e.file] {
			return false
		}
		seen[e.file] = true
	}
	return true
}

// resume replays segment file (id seg) into s's state: from the start
// when old is nil (prev did not list it) or missing, else from old's
// valid end, on a copy of old, once the file is known to still hold
// old's valid prefix; the descriptor prevHeld holds for seg is shared
// rather than the file opened again. mid: segments follow this one in
// prev, so it must not gain a valid line. ok is false when the replay
// cannot be continued; f (nil when missing) is then the caller's to
// release.
func (s *Snapshot) resume(file string, seg int32, old *segReplay, prevHeld *heldSegments, mid bool, buf []byte) (f *heldFile, res segReplay, ok bool) {
	path := s.v.segDir + "/" + file
	if old == nil || old.missing {
		f, res, err := openReplay(path, seg, s.v.state, buf)
		return f, res, err == nil && !(mid && !res.missing)
	}
	if f = prevHeld.shared(seg); f != nil && !old.isFileAt(path) {
		f.release() // the name now stands for another file
		f = nil
	}
	if f == nil {
		of, err := fsutil.OpenFile(path, os.O_RDONLY, 0)
		if err != nil {
			return nil, res, false
		}
		f = newHeldFile(of)
	}
	size, ok := old.prefixIn(f.File)
	if !ok {
		return f, res, false
	}
	res = *old // shares old.stats, which no snapshot writes once built
	if size == old.stats.end && old.bad == nil {
		return f, res, true // nothing after the prefix, as before
	}
	res.stats = old.stats.clone()
	if err := res.replayMore(f.File, seg, replayRead, s.v.state, buf, -1); err != nil {
		return f, res, false
	}
	if mid && res.stats.records != old.stats.records {
		return f, res, false
	}
	if res.stats.end != old.stats.end {
		res.tail = readTail(f.File, res.stats.end)
	}
	return f, res, true
}

// isFileAt reports whether path is still the file r replayed (device and
// inode): a shared descriptor is that file whatever the name now holds.
func (r *segReplay) isFileAt(path string) bool {
	fi, err := fsutil.Stat(path)
	return err == nil && r.isFile(fi)
}

// prefixIn reports whether f is the file r replayed (same device and
// inode) and still holds r's valid prefix: at least as long, its last
// tailCheck bytes unchanged, and, when its last line has no "\n", that
// line unchanged with nothing after it. size is f's size.
func (r *segReplay) prefixIn(f *os.File) (size int64, ok bool) {
	end := r.stats.end
	if r.ino == 0 || int64(len(r.tail)) != min(end, tailCheck) {
		return 0, false
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, false
	}
	if size = fi.Size(); !r.isFile(fi) || size < end {
		return 0, false
	}
	tail := make([]byte, len(r.tail))
	if _, err := f.ReadAt(tail, end-int64(len(tail))); err != nil || !bytes.Equal(tail, r.tail) {
		return 0, false
	}
	if r.unterminated {
		if size != end {
			return 0, false
		}
		line := make([]byte, end-r.tailOff)
		if _, err := f.ReadAt(line, r.tailOff); err != nil || xxh3.Hash(line) != r.tailSum {
			return 0, false
		}
	}
	return size, true
}
