package fusefs

import (
	"errors"
	"io"
	"sync"
	"time"
)

// Exporter writes a collection's export (the lines of `storhfs export`,
// docs/format/docstore.md §10.1), reading ahead for a reader waiting on
// it; *docstore.Store is one.
type Exporter interface {
	ExportView(out io.Writer) (int, error)
}

// exportStream is one run of an export, read as a file from its start:
// the export writes into a pipe from its own goroutine, so it runs only
// as fast as it is read, and the stream keeps the last ringSize bytes it
// read (ring) for reads a little behind its position (the kernel's
// read-ahead sends READs in parallel, slightly out of order).
//
// Invariant: ring holds the bytes [pos-len(ring), pos) of the export.
type exportStream struct {
	r       *io.PipeReader
	pos     int64
	ring    []byte
	err     error // the export's end: io.EOF, or why it failed
	lastUse time.Time
}

// Memory of one stream: the ring, plus the export's own chunk buffer
// (1 MiB) and read-ahead window (64 records).
const (
	ringSize  = 4 << 20 // capacity of the ring
	ringKeep  = 2 << 20 // bytes kept behind pos when the ring is full
	fillChunk = 256 << 10
)

func startExport(exp Exporter) *exportStream {
	r, w := io.Pipe()
	go func() {
		_, err := exp.ExportView(w)
		w.CloseWithError(err) // nil: io.EOF to the reader
	}()
	return &exportStream{r: r, ring: make([]byte, 0, ringSize)}
}

// start is the offset of the oldest byte the stream still holds.
func (s *exportStream) start() int64 { return s.pos - int64(len(s.ring)) }

// readAt copies the export's bytes at off into dest (off must be at or
// after start()); it reads the export forward as far as needed. n < len
// (dest) only at the export's end; err is the export's failure.
func (s *exportStream) readAt(dest []byte, off int64) (int, error) {
	end := off + int64(len(dest))
	for s.pos < end && s.err == nil {
		s.fill()
	}
	if off >= s.pos {
		return 0, s.failure()
	}
	n := copy(dest, s.ring[off-s.start():])
	return n, nil
}

// failure is the export's error, nil at a clean end.
func (s *exportStream) failure() error {
	if errors.Is(s.err, io.EOF) {
		return nil
	}
	return s.err
}

// fill reads the next bytes of the export into the ring.
func (s *exportStream) fill() {
	if cap(s.ring)-len(s.ring) < fillChunk {
		keep := min(len(s.ring), ringKeep)
		copy(s.ring, s.ring[len(s.ring)-keep:])
		s.ring = s.ring[:keep]
	}
	n, err := s.r.Read(s.ring[len(s.ring):min(cap(s.ring), len(s.ring)+fillChunk)])
	s.ring = s.ring[:len(s.ring)+n]
	s.pos += int64(n)
	if err != nil {
		s.err = err
	}
}

func (s *exportStream) close() { s.r.Close() }

// exportPool serves reads at any offset from a few export streams: a
// read continues the stream that holds its offset or is closest before
// it, or starts a new one (which reads, and drops, everything before the
// offset). Streams unused for streamIdle are closed.
type exportPool struct {
	exp Exporter

	mu      sync.Mutex
	streams []*exportStream
	idle    *time.Timer
	closed  bool
}

const (
	maxStreams = 4                // per pool: readers at different places
	streamIdle = 10 * time.Second // an unused stream is closed after this
)

// read serves a READ of dest's length at off.
func (p *exportPool) read(dest []byte, off int64) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, errPoolClosed
	}
	s := p.pick(off)
	s.lastUse = time.Now()
	if p.idle == nil {
		p.idle = time.AfterFunc(streamIdle, p.closeIdle)
	} else {
		p.idle.Reset(streamIdle)
	}
	return s.readAt(dest, off)
}

var errPoolClosed = errors.New("export stream closed")

// pick returns the stream to read off from (p.mu held): one that holds
// off, else the closest one before it (it reads forward to off), else a
// new one (evicting the least recently used beyond maxStreams).
func (p *exportPool) pick(off int64) *exportStream {
	var before *exportStream
	for _, s := range p.streams {
		if s.start() <= off && off < s.pos {
			return s
		}
		if s.pos <= off && (before == nil || s.pos > before.pos) {
			before = s
		}
	}
	if before != nil {
		return before
	}
	if len(p.streams) == maxStreams {
		oldest := 0
		for i, s := range p.streams {
			if s.lastUse.Before(p.streams[oldest].lastUse) {
				oldest = i
			}
		}
		p.streams[oldest].close()
		p.streams = append(p.streams[:oldest], p.streams[oldest+1:]...)
	}
	s := startExport(p.exp)
	p.streams = append(p.streams, s)
	return s
}

// closeIdle closes the streams unused for streamIdle.
func (p *exportPool) closeIdle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.streams[:0]
	for _, s := range p.streams {
		if time.Since(s.lastUse) >= streamIdle {
			s.close()
		} else {
			kept = append(kept, s)
		}
	}
	p.streams = kept
	if len(kept) > 0 {
		p.idle.Reset(streamIdle)
	}
}

// close ends every stream; later reads fail.
func (p *exportPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.dropLocked()
}

// drop ends every stream; a later read starts a new one.
func (p *exportPool) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropLocked()
}

func (p *exportPool) dropLocked() {
	for _, s := range p.streams {
		s.close()
	}
	p.streams = nil
	if p.idle != nil {
		p.idle.Stop()
	}
}

// countWriter counts what is written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(b []byte) (int, error) {
	w.n += int64(len(b))
	return len(b), nil
}

// exportSize is the length of the export as it is now (one full pass).
func exportSize(exp Exporter) (int64, error) {
	var w countWriter
	_, err := exp.ExportView(&w)
	return w.n, err
}
