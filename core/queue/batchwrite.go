package queue

import (
	"os"
	"time"
)

// Large batches are written while the CPU work goes on: the caller encodes
// lines into chunk buffers and a second goroutine appends each full chunk
// to queue.log (hashing its lines first in an unhashed batch, and asking
// the kernel to start writing it back at once), then does the batch's one
// fsync, while the caller keeps encoding lines and applying them to the
// state. Durability is unchanged: the operation returns
// only after that fsync, exactly one per batch as in PHP, which also writes
// big batches in 1 MiB pieces (spec queue.md "Batching"). A write or fsync
// failure marks the state stale (as writeAndCommitBuf does), so the next
// sync rebuilds it from what the log really holds.

// streamMinLines is the batch size from which lines are streamed; smaller
// batches are written in one piece by finish.
const streamMinLines = 1024

// streamChunk is the size from which a chunk buffer is handed over.
const streamChunk = 256 << 10

// streamBuffers chunk buffers rotate between the caller and the writer.
const streamBuffers = 3

// maxKeptBuf bounds the line buffer a Queue keeps between operations: a
// small batch of big payloads must not pin its buffer for the queue's life.
const maxKeptBuf = 1 << 20

// batchWriter writes one batch. Callers append whole lines to buf and call
// next after each; finish (or abort) ends the batch. Owned by the op holding
// q.mu and the flock; the goroutine touches only the file, the channels and
// the fields below "set by the goroutine" until done is closed.
type batchWriter struct {
	q   *Queue
	buf []byte // lines not handed over yet

	full  chan []byte // chunks to write; nil when not streaming
	free  chan []byte // written chunks, for reuse
	done  chan struct{}
	ended bool // finish or abort ran

	// unhashed: the lines are framed by endLineUnhashed, and their hashes
	// are written (fillHashes) just before they are, by the goroutine of a
	// streamed batch. Set before the goroutine starts.
	unhashed bool

	// Set by the goroutine, read after done is closed.
	written  int64
	syncWait time.Duration
	err      error
}

// beginBatch starts the writer of a batch of at most maxLines lines. A
// streamed batch first makes EOF equal q.offset (cutting a torn tail, like
// every append); a small one reuses q.buf and is written by finish.
func (q *Queue) beginBatch(maxLines int) (*batchWriter, error) {
	return q.beginBatchOf(maxLines, false)
}

// beginUnhashedBatch is beginBatch for lines framed by endLineUnhashed: the
// writer hashes them, in a streamed batch off the caller's goroutine.
func (q *Queue) beginUnhashedBatch(maxLines int) (*batchWriter, error) {
	return q.beginBatchOf(maxLines, true)
}

func (q *Queue) beginBatchOf(maxLines int, unhashed bool) (*batchWriter, error) {
	w := &batchWriter{q: q, unhashed: unhashed}
	if maxLines < streamMinLines {
		w.buf = q.buf[:0]
		return w, nil
	}
	if err := q.prepareAppend(); err != nil {
		q.stale = true
		return nil, err
	}
	w.full = make(chan []byte, streamBuffers)
	w.free = make(chan []byte, streamBuffers)
	for i := 1; i < streamBuffers; i++ {
		w.free <- make([]byte, 0, streamChunk+streamChunk/8)
	}
	w.buf = make([]byte, 0, streamChunk+streamChunk/8)
	w.done = make(chan struct{})
	go w.run(q.log, q.logPath, q.offset)
	return w, nil
}

// run writes the chunks in order, then fsyncs once if anything was written
// (and the batch was not aborted: full closed after a nil chunk).
func (w *batchWriter) run(f *os.File, path string, off int64) {
	defer close(w.done)
	aborted := false
	for chunk := range w.full {
		if chunk == nil {
			aborted = true
			continue
		}
		if w.err == nil {
			if w.unhashed {
				fillHashes(chunk)
			}
			n, err := f.WriteAt(chunk, off)
			if err != nil {
				w.err = storageError("Could not write storage file: %s", path, err)
			} else {
				startWriteback(f, off, int64(n))
				off += int64(n)
				w.written += int64(n)
			}
		}
		w.free <- chunk[:0]
	}
	if aborted || w.err != nil || w.written == 0 {
		return
	}
	start := time.Now()
	if err := f.Sync(); err != nil {
		w.err = storageError("Could not sync storage file: %s", path, err)
	}
	w.syncWait = time.Since(start)
}

// next hands buf over once it holds a chunk's worth of lines.
func (w *batchWriter) next() {
	if w.full != nil && len(w.buf) >= streamChunk {
		w.full <- w.buf
		w.buf = <-w.free
	}
}

// finish writes the remaining lines, waits for the writes and the one
// fsync, and accounts for them: q.offset advances on success; any failure
// marks the state stale and is returned. Nothing written means no fsync.
func (w *batchWriter) finish() error {
	w.ended = true
	if w.full == nil {
		if cap(w.buf) <= maxKeptBuf {
			w.q.buf = w.buf
		}
		if w.unhashed {
			fillHashes(w.buf)
		}
		return w.q.writeAndCommitBuf(w.buf)
	}
	if len(w.buf) > 0 {
		w.full <- w.buf
	}
	return w.wait()
}

// abort ends a batch that cannot be completed: the chunks already handed
// over are written (a batch is not atomic, as in PHP), the rest is dropped,
// nothing is fsynced, and the state is marked stale.
func (w *batchWriter) abort() {
	w.ended = true
	if w.full != nil {
		w.full <- nil
		_ = w.wait()
	}
	w.q.stale = true
}

// endIfOpen aborts the batch unless finish or abort already ended it:
// deferred right after beginBatch, so that a panic while the batch is
// built cannot leave the writer goroutine waiting for chunks forever.
func (w *batchWriter) endIfOpen() {
	if !w.ended {
		w.abort()
	}
}

func (w *batchWriter) wait() error {
	close(w.full)
	<-w.done
	w.q.syncWait += w.syncWait
	w.q.offset += w.written
	if w.err != nil {
		w.q.stale = true
		return w.err
	}
	return nil
}
