package seglog

import (
	"errors"
	"os"
	"sync"
)

// Pipelined replay: a log's segments are validated (framing, XXH32,
// envelope, segment stats) by worker goroutines while the caller applies
// the valid lines to the state index, segment after segment in manifest
// order, so the last write still wins exactly as in a sequential replay.
//
// Memory stays bounded: at most replayDepth segments are queued or being
// validated beyond the one being applied (the caller queues segment
// k+replayDepth+1 once it has applied segment k), and a worker hands a
// segment's lines over in chunks of at most replayChunkLines events, at
// most replayChunksAhead of them waiting. Reading streams as in the
// sequential replay. Truncation (replayRecover) is done by the caller,
// in order, after it applied the segment's valid prefix.

const (
	replayWorkers     = 2
	replayDepth       = 3
	replayChunkLines  = 256
	replayChunksAhead = 2
)

// lineEvent is one valid line, its id already packed when canonical
// (no pointers: chunks are not scanned by the GC).
type lineEvent struct {
	key   idKey
	off   int64
	other int32 // index into the chunk's others when the id is not canonical, else -1
	op    opKind
}

// eventChunk is a run of consecutive valid lines of one segment.
type eventChunk struct {
	events []lineEvent
	others []string // ids that are not canonical
}

// segmentJob is one segment of a pipelined replay. The worker closes
// events when done; res, err and f are then the segment's outcome (f, still
// open, only in replayRecover mode with an invalid line to cut).
type segmentJob struct {
	path     string
	seg      int32
	interval int64
	events   chan *eventChunk

	res segReplay
	err error
	f   *os.File
}

// replayPipeline runs the jobs of one replay.
type replayPipeline struct {
	mode   replayMode
	jobs   []*segmentJob
	next   chan *segmentJob
	cancel chan struct{} // closed when the caller stops early
	free   chan *eventChunk
	// queued jobs have been handed to the workers (the caller's side).
	queued      int
	queueClosed bool
	wg          sync.WaitGroup
}

// replaySegmentsPipelined replays jobs in order into st (a full index) and
// fills each job's res. It returns at the first error, as the sequential
// loop does; the workers have all exited by then. buf is one worker's
// scan window.
func replaySegmentsPipelined(jobs []*segmentJob, mode replayMode, st *stateIndex, buf []byte) error {
	p := &replayPipeline{
		mode:   mode,
		jobs:   jobs,
		next:   make(chan *segmentJob, replayDepth+1),
		cancel: make(chan struct{}),
		free:   make(chan *eventChunk, (replayDepth+1)*(replayChunksAhead+1)),
	}
	for _, j := range jobs {
		j.events = make(chan *eventChunk, replayChunksAhead)
	}
	p.queueUpTo(1 + replayDepth)
	for w := 0; w < replayWorkers && w < len(jobs); w++ {
		wbuf := buf
		if w > 0 || cap(wbuf) < scanBufSize {
			wbuf = make([]byte, scanBufSize) // kept for all the worker's segments
		}
		p.wg.Add(1)
		go p.work(wbuf)
	}
	err := p.applyAll(st)
	if err != nil {
		close(p.cancel)
		p.closeQueue()
	}
	p.wg.Wait()
	for _, j := range jobs { // segments left unapplied after an error
		if j.f != nil {
			j.f.Close()
		}
	}
	return err
}

// replaySegmentsSequential is replaySegmentsPipelined on the caller's
// goroutine alone, segment after segment.
func replaySegmentsSequential(jobs []*segmentJob, mode replayMode, st *stateIndex, buf []byte) error {
	for _, j := range jobs {
		r, err := replaySegment(j.path, j.seg, mode, st, j.interval, buf)
		j.res = r
		if err != nil {
			return err
		}
	}
	return nil
}

// queueUpTo hands the jobs before index to to the workers, in order.
func (p *replayPipeline) queueUpTo(to int) {
	for ; p.queued < to && p.queued < len(p.jobs); p.queued++ {
		p.next <- p.jobs[p.queued]
	}
	if p.queued == len(p.jobs) {
		p.closeQueue()
	}
}

// closeQueue ends the workers' loops once they drained the queue.
func (p *replayPipeline) closeQueue() {
	if !p.queueClosed {
		p.queueClosed = true
		close(p.next)
	}
}

// applyAll applies the jobs' events in order, then cuts each segment at
// its first invalid line (replayRecover).
func (p *replayPipeline) applyAll(st *stateIndex) error {
	for k, j := range p.jobs {
		for c := range j.events {
			for i := range c.events {
				e := &c.events[i]
				if e.other < 0 {
					st.applyKey(e.key, e.op, j.seg, e.off)
				} else {
					st.applyOther(c.others[e.other], e.op, j.seg, e.off)
				}
			}
			c.events, c.others = c.events[:0], c.others[:0]
			select {
			case p.free <- c:
			default:
			}
		}
		if j.f != nil {
			terr := truncateInvalid(j.f, p.mode, j.res)
			j.f.Close()
			j.f = nil
			if terr != nil {
				return terr
			}
		}
		if j.err != nil {
			return j.err
		}
		p.queueUpTo(k + 1 + replayDepth + 1) // segment k is done: one more may start
	}
	return nil
}

// work validates the jobs it takes, in the order they are queued.
func (p *replayPipeline) work(buf []byte) {
	defer p.wg.Done()
	for j := range p.next {
		if p.stopped() {
			close(j.events)
			continue
		}
		p.replayJob(j, buf)
	}
}

func (p *replayPipeline) stopped() bool {
	select {
	case <-p.cancel:
		return true
	default:
		return false
	}
}

func (p *replayPipeline) replayJob(j *segmentJob, buf []byte) {
	defer close(j.events)
	f, missing := openForReplay(j.path, p.mode, j.interval)
	if f == nil {
		j.res = missing
		return
	}
	sink := &eventSink{p: p, out: j.events}
	j.res, j.err = replayFile(f, j.seg, p.mode, sink, j.interval, buf, -1)
	if !sink.flush() {
		j.err = errReplayCancelled
	}
	if p.mode == replayRecover && j.res.bad != nil && j.err != errReplayCancelled {
		j.f = f // the caller truncates it once the prefix is applied
		return
	}
	f.Close()
}

// errReplayCancelled marks a segment whose replay stopped because the
// caller had already failed; it is never returned to callers.
var errReplayCancelled = errors.New("seglog: replay cancelled")

// eventSink is the lineSink of a worker: it packs lines into chunks and
// hands them to the applier.
type eventSink struct {
	p         *replayPipeline
	out       chan *eventChunk
	chunk     *eventChunk
	cancelled bool
}

func (s *eventSink) add(id []byte, op opKind, _ int32, off int64) bool {
	if s.chunk == nil {
		s.chunk = s.newChunk()
	}
	e := lineEvent{off: off, op: op, other: -1}
	if k, ok := parseIDKey(id); ok {
		e.key = k
	} else {
		e.other = int32(len(s.chunk.others))
		s.chunk.others = append(s.chunk.others, string(id))
	}
	s.chunk.events = append(s.chunk.events, e)
	if len(s.chunk.events) == replayChunkLines {
		return s.flush()
	}
	return true
}

func (s *eventSink) countsRecords() bool { return false }

func (s *eventSink) newChunk() *eventChunk {
	select {
	case c := <-s.p.free:
		return c
	default:
		return &eventChunk{events: make([]lineEvent, 0, replayChunkLines)}
	}
}

// flush hands the current chunk over; false when the replay was
// cancelled (the chunk is dropped).
func (s *eventSink) flush() bool {
	if s.cancelled {
		return false
	}
	if s.chunk == nil || len(s.chunk.events) == 0 {
		return true
	}
	select {
	case s.out <- s.chunk:
		s.chunk = nil
		return true
	case <-s.p.cancel:
		s.cancelled = true
		return false
	}
}
