package fusefs

import (
	"io"
	"sync"
)

// streamWindow is how many of the most recently produced bytes a
// streamReader keeps (between half of it and all of it), so that reads slightly behind the stream (tail
// reading backwards, the kernel re-reading a page) need no restart.
const streamWindow = 1 << 20

// streamReader serves io.ReaderAt over content that can only be produced
// as a stream of lines from its start (a log view). It keeps one position
// in the stream and a window of the last bytes produced (up to
// streamWindow, at least the current line): a read at or after the position streams
// forward, a read inside the window is copied from it, and a read before
// the window restarts the stream. Memory is bounded by the window plus the
// longest line, whatever the content's size. Safe for concurrent use.
type streamReader struct {
	open func() LineSource
	// skip reports errors the stream reports and then goes on from (lines
	// left out of the content); any other error fails the read.
	skip func(error) bool

	// tail, when known, is the content's last bytes (tail, tail -n and
	// tail -c read there first): served without streaming.
	tail      []byte
	tailStart int64

	mu       sync.Mutex
	src      LineSource // the current pass, nil before the first read
	pos      int64      // bytes produced by the current pass
	win      []byte     // bytes [pos-len(win), pos)
	finished bool       // the current pass reached the end
}

// newStreamReader serves content a LineSource produces.
func newStreamReader(open func() LineSource, skip func(error) bool) *streamReader {
	return &streamReader{open: open, skip: skip}
}

// withTail sets the content's last bytes; size is the content's size.
func (r *streamReader) withTail(tail []byte, size int64) *streamReader {
	r.tail, r.tailStart = tail, size-int64(len(tail))
	return r
}

func (r *streamReader) ReadAt(p []byte, off int64) (int, error) {
	if r.tail != nil && off >= r.tailStart {
		n := 0
		if i := off - r.tailStart; i < int64(len(r.tail)) {
			n = copy(p, r.tail[i:])
		}
		if n < len(p) {
			return n, io.EOF
		}
		return n, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if off < r.pos-int64(len(r.win)) {
		r.restart()
	}
	n := 0
	for n < len(p) {
		winStart := r.pos - int64(len(r.win))
		if off >= winStart && off < r.pos {
			c := copy(p[n:], r.win[off-winStart:])
			n += c
			off += int64(c)
			continue
		}
		if r.finished {
			return n, io.EOF
		}
		if err := r.produce(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// produce appends the next line to the window, dropping old bytes.
func (r *streamReader) produce() error {
	if r.src == nil {
		r.src = r.open()
	}
	for {
		line, err := r.src.Next()
		if err == io.EOF {
			r.finished = true
			return nil
		}
		if err != nil {
			if r.skip != nil && r.skip(err) {
				continue
			}
			return err
		}
		r.win = appendWindow(r.win, line)
		r.pos += int64(len(line))
		return nil
	}
}

func (r *streamReader) restart() {
	if r.src != nil {
		r.src.Close()
	}
	r.src, r.pos, r.win, r.finished = nil, 0, r.win[:0], false
}

// Close ends the current pass.
func (r *streamReader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.restart()
	r.win = nil
	return nil
}

// appendWindow appends line to a window of the last bytes of a stream,
// dropping its oldest bytes beyond streamWindow (at least half the window
// at once: moving the window per line would copy it per line).
func appendWindow(win, line []byte) []byte {
	if over := len(win) + len(line) - streamWindow; over > 0 {
		drop := min(max(over, streamWindow/2), len(win))
		win = win[:copy(win, win[drop:])]
	}
	return append(win, line...)
}
