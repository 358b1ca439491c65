package queue

// batch appends the event lines of one operation to queue.log the way PHP
// does (docs/format/queue.md §6, "Batching"): lines collect in a buffer
// that is written whenever it reaches batchFlushBytes and once more at the
// end, followed by exactly one fsync if anything was written. The caller
// applies each event to the state before adding its line. Any failure marks
// the state stale, so the next sync rebuilds it from what the log really
// holds; lines written before the failure stay in the log, unsynced, as
// PHP leaves them when it throws in the middle of a batch.
type batch struct {
	q     *Queue
	buf   []byte
	wrote bool // a write reached the log: finish must fsync
}

// batchFlushBytes is PHP's batch write size (1 MiB).
const batchFlushBytes = 1 << 20

// maxKeptBuf bounds the line buffer a Queue keeps between operations: a
// batch of big payloads must not pin its buffer for the queue's life.
const maxKeptBuf = 1 << 20

func (q *Queue) newBatch() *batch { return &batch{q: q, buf: q.buf[:0]} }

// add appends the line of one event, already applied to the state.
func (b *batch) add(op Op, id string, done bool, payloadJSON []byte, ts int64) error {
	b.buf, b.q.scratch = appendEventLine(b.buf, b.q.scratch, op, id, done, payloadJSON, ts)
	if len(b.buf) < batchFlushBytes {
		return nil
	}
	return b.flush()
}

// flush writes the buffered lines at EOF, cutting a torn tail first (once
// per batch, like every append).
func (b *batch) flush() error {
	if len(b.buf) == 0 {
		return nil
	}
	if !b.wrote {
		if err := b.q.prepareAppend(); err != nil {
			b.q.stale = true
			return err
		}
	}
	if err := b.q.writeLines(b.buf); err != nil {
		return err
	}
	b.wrote = true
	b.buf = b.buf[:0]
	return nil
}

// finish writes what is left and fsyncs once if anything was written.
func (b *batch) finish() error {
	err := b.flush()
	if cap(b.buf) <= maxKeptBuf {
		b.q.buf = b.buf[:0]
	}
	if err != nil || !b.wrote {
		return err
	}
	return b.q.commit()
}

// fail ends a batch that cannot be completed with err: the state, which
// may hold events that were never written, is rebuilt at the next sync.
func (b *batch) fail(err error) error {
	b.q.stale = true
	return err
}
