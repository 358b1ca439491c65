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
// the export writes into a pipe from its own goroutine, so it runs at
// most pipeDepth chunks ahead of its reader, and the stream keeps at
// least the last ringKeep bytes it read (ring) for reads a little behind
// its position (the kernel's read-ahead sends READs in parallel, slightly
// out of order).
//
// Invariant: ring holds the bytes [pos-len(ring), pos) of the export.
type exportStream struct {
	r       *chunkPipe
	pos     int64
	ring    []byte
	err     error // the export's end: io.EOF, or why it failed
	lastUse time.Time
}

// Memory of one stream: the ring, the pipe's chunks (ExportView writes
// about 128 KiB at a time; up to pipeDepth waiting, one being read), and
// the export's own chunk buffer, walk and read-ahead window. The kernel's read-ahead sends READs at
// most a few hundred KiB out of order: ringKeep covers them.
const (
	ringSize  = 1 << 20   // capacity of the ring
	ringKeep  = 512 << 10 // bytes kept behind pos when the ring is full
	fillChunk = 128 << 10
)

func startExport(exp Exporter) *exportStream {
	p := newChunkPipe()
	go func() {
		_, err := exp.ExportView(p)
		p.closeWithError(err)
	}()
	return &exportStream{r: p, ring: make([]byte, 0, ringSize)}
}

// chunkPipe carries the export's writes (chunks of about 1 MiB) to the
// stream's reader with up to pipeDepth of them in flight, so the export
// prepares the next chunk while the reader drains one (io.Pipe would make
// them take turns).
type chunkPipe struct {
	chunks chan []byte   // written, unread; closed after err is set
	free   chan []byte   // drained buffers for reuse
	done   chan struct{} // closed by Close: writes fail
	closer sync.Once
	err    error  // the export's end (nil: io.EOF)
	cur    []byte // the reader's unread rest of a chunk
	buf    []byte // cur's whole buffer, for reuse
}

const pipeDepth = 4

var errPipeClosed = errors.New("export reader closed")

func newChunkPipe() *chunkPipe {
	return &chunkPipe{chunks: make(chan []byte, pipeDepth), free: make(chan []byte, pipeDepth+1), done: make(chan struct{})}
}

// Write copies b into a chunk for the reader; it fails once the reader
// closed the pipe.
func (p *chunkPipe) Write(b []byte) (int, error) {
	var buf []byte
	select {
	case buf = <-p.free:
	default:
	}
	buf = append(buf[:0], b...)
	select {
	case p.chunks <- buf:
		return len(b), nil
	case <-p.done:
		return 0, errPipeClosed
	}
}

func (p *chunkPipe) closeWithError(err error) {
	if err == nil {
		err = io.EOF
	}
	p.err = err
	close(p.chunks)
}

// Read reads the next bytes; err is the export's end once all is read.
func (p *chunkPipe) Read(dest []byte) (int, error) {
	if len(p.cur) == 0 {
		if p.buf != nil {
			select {
			case p.free <- p.buf:
			default:
			}
			p.buf = nil
		}
		chunk, ok := <-p.chunks
		if !ok {
			return 0, p.err
		}
		p.cur, p.buf = chunk, chunk
	}
	n := copy(dest, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// Close makes the export's writes fail, so it ends.
func (p *chunkPipe) Close() { p.closer.Do(func() { close(p.done) }) }

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
