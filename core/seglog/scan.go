package seglog

import (
	"bytes"
	"io"

	"github.com/storhfs/storhfs/core/guard"
)

// MaxLineBytes bounds the memory one line may take while a segment is
// read. A longer line is reported invalid (PHP itself cannot read such a
// line within its default memory_limit).
const MaxLineBytes = 64 << 20

// headerLimit bounds the "<len>\t<xxh32>\t" header: a line without two TABs
// in its first headerLimit bytes is malformed for our purposes.
const headerLimit = 4096

const scanBufSize = 64 << 10

// lineScanner reads the lines of one segment from a byte offset up to a
// limit (or EOF), without holding more than one line plus a fixed window
// in memory. Lines are split after "\n"; the last one may lack it.
type lineScanner struct {
	src   io.ReaderAt
	next  int64 // file offset of the next unread byte
	limit int64 // stop reading here; < 0 = until EOF

	buf  []byte // read window
	r, w int    // unread bytes are buf[r:w]
	eof  bool

	acc     []byte // a line longer than the window
	lineOff int64  // offset of the line being returned
	done    bool
	err     error // read error (not EOF)
}

func newLineScanner(src io.ReaderAt, off, limit int64, buf []byte) *lineScanner {
	if buf == nil {
		buf = make([]byte, scanBufSize)
	}
	return &lineScanner{src: src, next: off, limit: limit, buf: buf[:cap(buf)]}
}

// fill reads more bytes into the window, compacting it first.
func (s *lineScanner) fill() {
	if s.eof {
		return
	}
	if s.r > 0 {
		n := copy(s.buf, s.buf[s.r:s.w])
		s.r, s.w = 0, n
	}
	want := len(s.buf) - s.w
	if s.limit >= 0 && int64(want) > s.limit-s.next {
		want = int(s.limit - s.next)
	}
	if want <= 0 {
		s.eof = true
		return
	}
	n, err := s.src.ReadAt(s.buf[s.w:s.w+want], s.next)
	s.w += n
	s.next += int64(n)
	if err == io.EOF || (err == nil && n == 0) {
		s.eof = true
	} else if err != nil {
		s.err = err
		s.eof = true
	}
}

// line returns the next line (its terminator included when present) and
// its offset. A line cut short for exceeding its framing or MaxLineBytes
// is necessarily invalid, and scanning ends after it. ok is false at the
// end of data or on a read error (see Err).
// The returned slice is valid until the next call.
func (s *lineScanner) line() (line []byte, off int64, ok bool) {
	if s.done {
		return nil, 0, false
	}
	s.acc = s.acc[:0]
	start := s.next - int64(s.w-s.r) // offset of buf[r]
	for {
		if i := bytes.IndexByte(s.buf[s.r:s.w], '\n'); i >= 0 {
			seg := s.buf[s.r : s.r+i+1]
			s.r += i + 1
			if len(s.acc) == 0 {
				return seg, start, true
			}
			s.acc = append(s.acc, seg...)
			s.done = tooLong(s.acc)
			return s.acc, start, true
		}
		if s.eof {
			s.acc = append(s.acc, s.buf[s.r:s.w]...)
			s.r = s.w
			s.done = true
			if len(s.acc) == 0 {
				return nil, 0, false
			}
			return s.acc, start, true
		}
		if s.r == 0 && s.w == len(s.buf) {
			// Window full without a newline: move it to the accumulator.
			s.acc = append(s.acc, s.buf[:s.w]...)
			s.r, s.w = 0, 0
			if tooLong(s.acc) {
				s.done = true
				return s.acc, start, true
			}
		}
		s.fill()
	}
}

// Err returns the read error that ended scanning, if any.
func (s *lineScanner) Err() error { return s.err }

// tooLong reports whether a partial line can no longer become valid: no
// header within headerLimit, more bytes than its length field allows, or
// more than MaxLineBytes.
func tooLong(acc []byte) bool {
	if len(acc) > MaxLineBytes {
		return true
	}
	h := acc
	if len(h) > headerLimit {
		h = h[:headerLimit]
	}
	t1 := bytes.IndexByte(h, '\t')
	if t1 < 0 {
		return len(acc) > headerLimit
	}
	t2 := bytes.IndexByte(h[t1+1:], '\t')
	if t2 < 0 {
		return len(acc) > headerLimit
	}
	declared := guard.PHPIntCast(acc[:t1])
	if declared < 0 {
		return true
	}
	// payload + optional "\r\n"
	return int64(len(acc)) > int64(t1+1+t2+1)+declared+2
}
