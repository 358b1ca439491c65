package seglog

import (
	"errors"
	"os"
)

// replayMode selects how a segment's lines are validated and what happens
// at the first invalid one (spec 4.1, 5.2, 5.3).
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
	end     int64 // end of the valid prefix
	size    int64 // bytes read (file size as seen)
	bad     error // first invalid line (replayRead / replayRecover), nil if none
	badOff  int64
	// payloadBytes is the sum of len(payload)+1 over the valid lines: the
	// size of the segment with its framing stripped.
	payloadBytes int64
}

// replaySegment applies every valid line of path to st (as segment seg)
// and returns the segment's statistics. interval > 0 collects sparse
// offsets. In replayVerify mode an invalid line is returned as error.
func replaySegment(path string, seg int32, mode replayMode, st *stateIndex, interval int64, buf []byte) (segReplay, error) {
	res := segReplay{stats: newSegStats(interval)}
	var f *os.File
	var err error
	if mode == replayRecover {
		f, err = os.OpenFile(path, os.O_RDWR, 0)
	} else {
		f, err = os.Open(path)
	}
	if err != nil {
		res.missing = true
		return res, nil
	}
	defer f.Close()
	sc := newLineScanner(f, 0, -1, buf)
	for {
		line, off, _, ok := sc.line()
		if !ok {
			break
		}
		res.size = off + int64(len(line))
		var op opKind
		var id []byte
		var lineErr error
		var plen int
		if mode == replayVerify {
			var env envelope
			payload, perr := frameFull(line)
			if perr == nil {
				env, perr = decodeEnvelope(payload)
			}
			if perr != nil {
				return res, perr
			}
			op, id, plen = env.op, []byte(env.id), len(payload)
		} else {
			op, id, plen, lineErr = validateFast(line)
		}
		if lineErr != nil {
			res.bad, res.badOff = lineErr, off
			if mode == replayRecover {
				if terr := f.Truncate(off); terr != nil {
					return res, terr
				}
				if serr := f.Sync(); serr != nil {
					return res, serr
				}
			}
			break
		}
		st.apply(id, op, seg, off)
		res.stats.add(id, off)
		res.stats.end = off + int64(len(line))
		res.end = off + int64(len(line))
		res.payloadBytes += int64(plen) + 1
	}
	if err := sc.Err(); err != nil {
		return res, err
	}
	return res, nil
}

// validateFast is PHP's open/recover validation of one raw line: framing,
// then the envelope fast path, else the full decode.
func validateFast(line []byte) (op opKind, id []byte, payloadLen int, err error) {
	payload, err := frameFast(line)
	if err != nil {
		return 0, nil, 0, err
	}
	if op, id, _, ok := fastEnvelope(payload); ok {
		return op, id, len(payload), nil
	}
	env, err := decodeEnvelope(payload)
	if err != nil {
		return 0, nil, 0, err
	}
	return env.op, []byte(env.id), len(payload), nil
}

var errNotExist = os.ErrNotExist

func isNotExist(err error) bool { return errors.Is(err, errNotExist) }
