package seglog

import (
	"errors"
	"os"
	"syscall"

	"github.com/zeebo/xxh3"

	"github.com/storhfs/storhfs/core/fsutil"
)

// replayMode selects how a segment's lines are validated and what happens
// at the first invalid one (docs/format/segmentedlog.md §4.1, §5.2, §5.3).
type replayMode uint8

const (
	// replayRead: fast-path validation; stop at the first invalid line and
	// report it. Opens read-only, never modifies anything.
	replayRead replayMode = iota
	// replayRecover: fast-path validation; truncate the file at the first
	// invalid line (PHP open/recover). Opens read-write.
	replayRecover
	// replayVerify: full decode of every line; the first invalid line fails
	// the replay with its error. Opens read-only.
	replayVerify
)

// segReplay is the outcome of replaying one segment.
type segReplay struct {
	stats   *segStats
	missing bool  // file absent or not openable: skipped
	size    int64 // bytes read (file size as seen)
	bad     error // first invalid line (replayRead / replayRecover), nil if none
	badOff  int64
	// payloadBytes is the sum of len(payload)+1 over the valid lines: the
	// size of the segment with its framing stripped.
	payloadBytes int64
	// recordsBytes is the size of the records.ndjson lines of the valid
	// lines, counted only with a sequential index (every line current)
	// and exact only while recordsExact: a line whose output cannot be
	// told from its bytes alone clears it.
	recordsBytes int64
	recordsExact bool
	ino          uint64 // the file replayed (0 when unknown or replayRecover)
	dev          uint64 // ino's device (with ino: the file's identity)
	// unterminated: the last valid line has no "\n" (docs/format/segmentedlog.md §2.6). Its bytes
	// are the only ones below end that storh may rewrite in place (the
	// next append makes it invalid; recovery truncates at tailOff), so a
	// snapshot remembers tailOff and tailSum (xxh3 of the raw line).
	unterminated bool
	tailOff      int64
	tailSum      uint64
	// tail is a snapshot's copy of the last (up to tailCheck) bytes of
	// the valid prefix, which SnapshotAfter checks before resuming there.
	tail []byte
}

// replaySegment applies every valid line of path to st (as segment seg)
// and returns the segment's statistics; interval > 0 collects sparse
// offsets. A segment that cannot be opened is skipped (missing). In
// replayVerify mode an invalid line is returned as error; in
// replayRecover mode the file is cut at it and fsynced (PHP's recovery).
func replaySegment(path string, seg int32, mode replayMode, st *stateIndex, interval int64, buf []byte) (segReplay, error) {
	flag := os.O_RDONLY
	if mode == replayRecover {
		flag = os.O_RDWR
	}
	f, err := fsutil.OpenFile(path, flag, 0)
	if err != nil {
		return segReplay{stats: newSegStats(interval), missing: true, recordsExact: true}, nil
	}
	defer f.Close()
	res, err := replayFile(f, seg, mode, st, interval, buf, -1)
	if mode == replayRecover && res.bad != nil {
		if terr := f.Truncate(res.badOff); terr != nil {
			return res, terr
		}
		if terr := f.Sync(); terr != nil {
			return res, terr
		}
	}
	return res, err
}

// replayFile validates the lines of an open file up to limit (< 0: EOF)
// and passes the valid ones to st; f is never modified. A sequential
// index that breaks ends the replay early: the caller starts over with a
// full index.
func replayFile(f *os.File, seg int32, mode replayMode, st *stateIndex, interval int64, buf []byte, limit int64) (segReplay, error) {
	res := segReplay{stats: newSegStats(interval), recordsExact: true}
	if mode != replayRecover { // only snapshots (read modes) use the identity
		res.dev, res.ino = fileID(f)
	}
	err := res.replayMore(f, seg, mode, st, buf, limit)
	return res, err
}

// replayMore continues res, the replay of f so far, with the lines from
// its valid end (res.stats.end) up to limit: as if one replayFile had
// read them all, but for what the bytes from the valid end on now hold
// (size, bad and badOff are found again). res.stats must be res's own
// (a clone when res continues another snapshot's replay).
func (res *segReplay) replayMore(f *os.File, seg int32, mode replayMode, st *stateIndex, buf []byte, limit int64) error {
	res.size, res.bad, res.badOff = res.stats.end, nil, 0
	sc := newLineScanner(f, res.stats.end, limit, buf)
	var canon canonChecker
	for {
		line, off, ok := sc.line()
		if !ok {
			break
		}
		res.size = off + int64(len(line))
		var op opKind
		var id []byte
		var lineErr error
		var plen int
		var data []byte
		if mode == replayVerify {
			var env envelope
			payload, perr := frameFull(line)
			if perr == nil {
				env, perr = decodeEnvelope(payload)
			}
			if perr != nil {
				return perr
			}
			op, id, plen = env.op, []byte(env.id), len(payload)
		} else {
			op, id, data, plen, lineErr = validateFast(line)
		}
		if lineErr != nil {
			res.bad, res.badOff = lineErr, off
			break
		}
		if st.apply(id, op, seg, off); st.broken {
			return nil
		}
		if st.sequential { // every line so far is current
			if n, ok := recordLineLen(&canon, line, id, data, plen); ok {
				res.recordsBytes += n
			} else {
				res.recordsExact = false
			}
		}
		res.stats.add(id, off)
		res.stats.end = off + int64(len(line))
		res.payloadBytes += int64(plen) + 1
		res.unterminated = line[len(line)-1] != '\n'
		if res.unterminated {
			res.tailOff, res.tailSum = off, xxh3.Hash(line)
		}
	}
	return sc.Err()
}

// validateFast is PHP's open/recover validation of one raw line: framing,
// then the envelope fast path, else the full decode. data is the raw data
// JSON of a put the fast path recognised (nil otherwise).
func validateFast(line []byte) (op opKind, id, data []byte, payloadLen int, err error) {
	payload, err := frameFast(line)
	if err != nil {
		return 0, nil, nil, 0, err
	}
	if op, id, data, ok := fastEnvelope(payload); ok {
		return op, id, data, len(payload), nil
	}
	env, err := decodeEnvelope(payload)
	if err != nil {
		return 0, nil, nil, 0, err
	}
	return env.op, []byte(env.id), nil, len(payload), nil
}

func isNotExist(err error) bool { return errors.Is(err, os.ErrNotExist) }

// inodeOf is f's inode number, 0 when unknown.
func inodeOf(f *os.File) uint64 {
	_, ino := fileID(f)
	return ino
}

// fileID is f's device and inode number, 0 and 0 when unknown.
func fileID(f *os.File) (dev, ino uint64) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0
	}
	return infoID(fi)
}

// infoID is the device and inode number fi describes, 0 and 0 when unknown.
func infoID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino
	}
	return 0, 0
}

// isFile reports whether fi describes the file r replayed.
func (r *segReplay) isFile(fi os.FileInfo) bool {
	dev, ino := infoID(fi)
	return ino != 0 && dev == r.dev && ino == r.ino
}
