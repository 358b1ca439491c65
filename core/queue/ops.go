package queue

import (
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// Record is a claimed job: its id and the payload as PHP claimers see it
// (docs/format/queue.md §4.3). Payload is shared with the queue's state and
// must not be modified.
type Record struct {
	ID      string
	Payload *phpjson.Array
}

// Job is one enqueueMany entry. ID "" means "generate".
type Job struct {
	ID      string
	Payload *phpjson.Array
}

// resolveID validates an explicit id or produces one (built-in generator, or
// Options.NewID whose ids are validated). Runs before the lock, like PHP.
func (q *Queue) resolveID(id string) (string, error) {
	return q.resolveIDAt(id, q.now().UnixMilli())
}

// resolveIDAt is resolveID with the built-in generator's clock read as ms.
func (q *Queue) resolveIDAt(id string, ms int64) (string, error) {
	if id != "" {
		if !uuidv7.Valid(id) {
			return "", uuidv7.ErrInvalid
		}
		return id, nil
	}
	if q.newID == nil {
		return q.ids.NewAt(ms)
	}
	id, err := q.newID()
	if err != nil {
		return "", err
	}
	if !uuidv7.Valid(id) {
		return "", uuidv7.ErrInvalid
	}
	return id, nil
}

func payloadOrEmpty(p *phpjson.Array) *phpjson.Array {
	if p == nil {
		return phpjson.NewArray(0)
	}
	return p
}

// Enqueue appends one job and returns its id (id "" = generate). payload nil
// is the empty payload; it must not be modified afterwards.
func (q *Queue) Enqueue(payload *phpjson.Array, id string) (string, error) {
	id, err := q.resolveID(id)
	if err != nil {
		return "", err
	}
	payloadJSON, err := appendPayloadJSON(nil, payload)
	if err != nil {
		return "", err
	}
	stored := NormalizePayload(payloadOrEmpty(payload))
	err = q.op(func(now int64) error {
		q.st.enqueue(id, payloadRef{val: stored})
		b := q.newBatch()
		if err := b.add(OpEnqueue, id, false, payloadJSON, now); err != nil {
			return err
		}
		return b.finish()
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// EnqueueMany appends one enqueue line per job, all with the ts read before
// locking, and returns the ids in order. As in PHP, each job's id is
// resolved (explicit ids validated, the generator called) and its payload
// encoded in turn under the lock, so a bad job fails the call with the id
// generator called up to it, and with what the batch had written before it
// (whole 1 MiB pieces) left in the log unsynced.
func (q *Queue) EnqueueMany(jobs []Job) ([]string, error) {
	if len(jobs) == 0 {
		return []string{}, nil
	}
	now := q.now()
	ts, ms := now.Unix(), now.UnixMilli()
	ids := make([]string, len(jobs))
	var payloadJSON []byte
	err := q.op(func(int64) error {
		b := q.newBatch()
		for i, j := range jobs {
			id, err := q.resolveIDAt(j.ID, ms)
			if err != nil {
				return b.fail(err)
			}
			if payloadJSON, err = appendPayloadJSON(payloadJSON[:0], j.Payload); err != nil {
				return b.fail(err)
			}
			ids[i] = id
			q.st.enqueue(id, payloadRef{val: NormalizePayload(payloadOrEmpty(j.Payload))})
			if err := b.add(OpEnqueue, id, false, payloadJSON, ts); err != nil {
				return err
			}
		}
		return b.finish()
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// Claim takes the first pending job in claim order; nil when none is pending
// (nothing is written then).
func (q *Queue) Claim() (*Record, error) {
	recs, err := q.claim(1)
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	return &recs[0], nil
}

// ClaimMany claims up to limit pending jobs in claim order, one claim line
// each with one shared ts. limit < 1 fails before locking.
func (q *Queue) ClaimMany(limit int) ([]Record, error) {
	if limit < 1 {
		return nil, ErrClaimLimit
	}
	return q.claim(limit)
}

func (q *Queue) claim(limit int) ([]Record, error) {
	var recs []Record
	err := q.op(func(now int64) error {
		n := min(limit, q.st.pending.n)
		if n == 0 {
			return nil
		}
		recs = make([]Record, n)
		b := q.newBatch()
		for i := range recs {
			j := q.st.claimJob(q.st.pending.head, now)
			recs[i] = Record{ID: j.id, Payload: payloadOrEmpty(j.payload.val)}
			if err := b.add(OpClaim, j.id, false, nil, now); err != nil {
				return err
			}
		}
		return b.finish()
	})
	return recs, err
}

// Complete finishes a processing job: keepDone records it as done (until a
// purge), otherwise it is forgotten. An id that is not processing (exact
// string) is a silent no-op; an invalid id fails before locking.
func (q *Queue) Complete(id string, keepDone bool) error {
	_, err := q.CompleteMany([]string{id}, keepDone)
	return err
}

// CompleteMany completes the processing jobs among ids (duplicates skipped,
// input order kept) and returns how many it completed. Every id is validated
// first; an empty list returns 0 without locking.
func (q *Queue) CompleteMany(ids []string, keepDone bool) (int, error) {
	if err := validIDs(ids); err != nil || len(ids) == 0 {
		return 0, err
	}
	completed := 0
	err := q.op(func(now int64) error {
		b := q.newBatch()
		for _, id := range ids {
			j := q.st.lookup(id)
			if j == nil || j.state != stateProcessing {
				continue // not processing, or a duplicate already completed
			}
			q.st.completeJob(j, keepDone, now)
			if err := b.add(OpComplete, id, keepDone, nil, now); err != nil {
				return err
			}
			completed++
		}
		return b.finish()
	})
	if err != nil {
		return 0, err
	}
	return completed, nil
}

// validIDs fails with uuidv7.ErrInvalid unless every id is a valid UUIDv7.
func validIDs(ids []string) error {
	for _, id := range ids {
		if !uuidv7.Valid(id) {
			return uuidv7.ErrInvalid
		}
	}
	return nil
}

// RequeueMany moves the processing jobs among ids (duplicates skipped,
// input order kept) to the back of the pending order and returns how
// many. It writes the requeue events PHP's requeue_timed_out writes, one
// per job (docs/format/queue.md), so PHP replays them alike; ids that are
// not processing are skipped. Every id is validated first; an empty list
// returns 0 without locking.
func (q *Queue) RequeueMany(ids []string) (int, error) {
	if err := validIDs(ids); err != nil || len(ids) == 0 {
		return 0, err
	}
	n := 0
	err := q.op(func(now int64) error {
		b := q.newBatch()
		for _, id := range ids {
			if j := q.st.lookup(id); j == nil || j.state != stateProcessing {
				continue
			}
			q.st.requeue(id)
			if err := b.add(OpRequeue, id, false, nil, now); err != nil {
				return err
			}
			n++
		}
		return b.finish()
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// RequeueTimedOut moves every processing job with now - claimed_at >=
// timeoutS (so every one for timeoutS <= 0) to the back of the pending
// order, in claim order, and returns how many.
func (q *Queue) RequeueTimedOut(timeoutS int64) (int, error) {
	n := 0
	err := q.op(func(now int64) error {
		var err error
		n, err = q.requeueTimedOut(timeoutS, now)
		return err
	})
	return n, err
}

func (q *Queue) requeueTimedOut(timeoutS, now int64) (int, error) {
	b := q.newBatch()
	n := 0
	for j := q.st.processing.head; j != nil; {
		next := j.next
		if now-j.at >= timeoutS {
			q.st.requeue(j.id)
			if err := b.add(OpRequeue, j.id, false, nil, now); err != nil {
				return n, err
			}
			n++
		}
		j = next
	}
	return n, b.finish()
}

// PurgeDone forgets done jobs: all of them for olderThanS <= 0, otherwise
// those with now - completed_at >= olderThanS. Returns how many.
func (q *Queue) PurgeDone(olderThanS int64) (int, error) {
	n := 0
	err := q.op(func(now int64) error {
		b := q.newBatch()
		for j := q.st.done.head; j != nil; {
			next := j.next
			if olderThanS <= 0 || now-j.at >= olderThanS {
				id := j.id
				q.st.purge(id)
				if err := b.add(OpPurge, id, false, nil, now); err != nil {
					return err
				}
				n++
			}
			j = next
		}
		return b.finish()
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
