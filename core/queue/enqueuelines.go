package queue

import (
	"runtime"
	"sync"

	"storhfs/core/phpjson"
)

// EnqueueMany's work is split over the cores. Before the lock, the payloads
// are checked in parallel, runtime.GOMAXPROCS workers over contiguous
// ranges of jobs, while the caller draws the built-in ids, so that an
// invalid payload fails the batch with nothing locked or written. Under the
// lock, a streamed batch applies its jobs to the state on a goroutine of
// its own while the caller encodes and frames the lines and the batch
// writer (batchwrite.go) hashes and appends them. Memory stays that of the
// writer's chunk buffers, whatever the batch size. (Encoding the whole batch
// before the lock instead, which makes the check unnecessary, was slower:
// the encoded batch, held until written, is more than the check costs in
// allocation and GC work.)

// checkMinPerWorker is the fewest jobs worth a checking worker of their own.
const checkMinPerWorker = streamMinLines / 2

// startPayloadCheck starts looking for the first job whose payload does not
// encode (appendPayloadJSON fails), on goroutines for a large batch, and
// returns the function that waits for its index (-1: none). The caller may
// work meanwhile (EnqueueMany draws its ids), but must not modify the
// payloads.
func startPayloadCheck(jobs []Job) (wait func() int) {
	workers := min(runtime.GOMAXPROCS(0), len(jobs)/checkMinPerWorker)
	if workers <= 1 {
		bad := firstBadIn(jobs, 0, len(jobs))
		return func() int { return bad }
	}
	first := make([]int, workers) // per range: firstBadIn
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first[w] = firstBadIn(jobs, len(jobs)*w/workers, len(jobs)*(w+1)/workers)
		}()
	}
	return func() int {
		wg.Wait()
		for _, i := range first { // ranges in order: the first bad one holds the first bad job
			if i >= 0 {
				return i
			}
		}
		return -1
	}
}

// firstBadIn is the index of the first job in jobs[lo:hi] whose payload
// does not encode, or -1.
func firstBadIn(jobs []Job, lo, hi int) int {
	for i := lo; i < hi; i++ {
		if p := jobs[i].Payload; !encodablePayload(p) {
			if _, err := appendPayloadJSON(nil, p); err != nil {
				return i
			}
		}
	}
	return -1
}

// writeEnqueues appends the enqueue lines of jobs, whose payloads were
// checked, and applies them to the state (run by q.op, after the sync from
// the log). tail is `,"ts":TS}`. One fsync for the batch; a write or fsync
// failure marks the state stale.
func (q *Queue) writeEnqueues(jobs []Job, ids []string, tail []byte) error {
	w, err := q.beginUnhashedBatch(len(jobs))
	if err != nil {
		return err
	}
	defer w.endIfOpen()
	if w.full == nil {
		q.applyEnqueues(jobs, ids)
	} else {
		// The state's own goroutine; it must end before q.op returns.
		applied := make(chan struct{})
		go func() {
			defer close(applied)
			q.applyEnqueues(jobs, ids)
		}()
		defer func() { <-applied }()
	}
	lenDigits := 3 // LEN's digit count guessed from the previous line
	for i, j := range jobs {
		lineStart := len(w.buf)
		if w.buf, lenDigits, err = appendEnqueueLine(w.buf, ids[i], j.Payload, tail, lenDigits); err != nil {
			// Checked before the lock; only a payload changed meanwhile
			// (which the caller must not do) gets here.
			w.buf = w.buf[:lineStart]
			w.abort()
			return err
		}
		w.next()
	}
	return w.finish()
}

// appendEnqueueLine appends the line appendEventLine writes for (OpEnqueue,
// id, payload JSON, ts), framed in place but for its hash (fillHashes
// writes it, see batchWriter.unhashed). tail is `,"ts":TS}`, lenDigits
// LEN's digit count guessed from the previous line. It returns LEN's digit
// count. On an error dst holds a partial line.
func appendEnqueueLine(dst []byte, id string, payload *phpjson.Array, tail []byte, lenDigits int) ([]byte, int, error) {
	dst, jsonStart := beginLine(dst, lenDigits)
	dst = append(dst, `{"op":"enqueue","id":"`...)
	dst = append(dst, id...)
	dst = append(dst, `","payload":`...)
	dst, err := appendPayloadFast(dst, payload)
	if err != nil {
		return dst, lenDigits, err
	}
	dst = append(dst, tail...)
	dst, lenDigits = endLineUnhashed(dst, jsonStart, lenDigits)
	return dst, lenDigits, nil
}

func (q *Queue) applyEnqueues(jobs []Job, ids []string) {
	q.st.reserve(len(ids))
	for i, j := range jobs {
		q.st.enqueue(ids[i], payloadRef{val: NormalizePayload(payloadOrEmpty(j.Payload))})
	}
}
