package queue

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/storhfs/storhfs/core/guard"
)

// MaxLineBytes bounds one queue.log line in memory. PHP has no such limit, so
// a longer line is reported as a hard error (never as an invalid line, which
// would make the Queue truncate what PHP considers valid).
const MaxLineBytes = 256 << 20

// lineScanner yields the raw lines of a byte range as PHP fgets does: the
// bytes up to and including each LF, and finally the remainder without LF.
type lineScanner struct {
	r    *bufio.Reader
	off  int64 // offset of the next line's start
	long []byte
}

func newLineScanner(f io.ReaderAt, off, limit int64) *lineScanner {
	return &lineScanner{r: bufio.NewReaderSize(io.NewSectionReader(f, off, limit-off), 64<<10), off: off}
}

// next returns the next line and its start offset; io.EOF when the range is
// used up. The line is valid until the next call.
func (sc *lineScanner) next() (line []byte, start int64, err error) {
	start = sc.off
	line, err = sc.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		sc.long = append(sc.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = sc.r.ReadSlice('\n')
			if len(sc.long)+len(line) > MaxLineBytes {
				return nil, start, fmt.Errorf("queue.log line at offset %d is longer than %d bytes", start, MaxLineBytes)
			}
			sc.long = append(sc.long, line...)
		}
		line = sc.long
	}
	sc.off += int64(len(line))
	if err == io.EOF && len(line) > 0 {
		err = nil // the torn remainder; the guard reports it
	}
	if err != nil {
		return nil, start, err
	}
	return line, start, nil
}

// replayResult says how far a replay got.
type replayResult struct {
	end     int64      // end of the applied (valid) prefix
	lines   int        // lines applied
	invalid *LineError // first invalid line; nil when every line up to the limit applied
}

// replay applies the valid lines of f[off:limit] to s, in order, and stops at
// the first invalid line (docs/format/queue.md §2.2, §7). firstLine is the 1-based
// number of the line at off. keepPayloads stores decoded payloads (Queue);
// otherwise only the enqueue line's position is kept (Reader). onLine, when
// set, sees every applied line's start offset and JSON part. A non-nil error
// is an I/O failure, not an invalid line.
func replay(f io.ReaderAt, off, limit int64, firstLine int, s *state, now int64, keepPayloads bool, onLine func(start int64, json []byte)) (replayResult, error) {
	res := replayResult{end: off}
	if limit <= off {
		return res, nil
	}
	sc := newLineScanner(f, off, limit)
	var encoded []byte
	for {
		line, start, err := sc.next()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return res, err
		}
		json, ev, err := decodeLine(line)
		if err != nil {
			res.invalid = &LineError{Line: firstLine + res.lines, Offset: start, Err: err}
			return res, nil
		}
		var p payloadRef
		if ev.Op == OpEnqueue {
			if keepPayloads {
				p.val = ev.Payload
			} else {
				encoded = appendViewPayload(encoded[:0], ev.Payload)
				p.off, p.n, p.enc = start+1, int32(len(line)), int32(len(encoded))
			}
		}
		s.apply(&ev, p, now)
		if onLine != nil {
			onLine(start, json)
		}
		res.lines++
		res.end = start + int64(len(line))
	}
}

// decodeLine checks the guard and decodes the event of one raw line.
func decodeLine(line []byte) (json []byte, ev Event, err error) {
	json, fault := guard.Queue().Parse(line)
	if fault != guard.OK {
		return nil, Event{}, guardError(fault)
	}
	ev, err = DecodeEvent(json)
	return json, ev, err
}
