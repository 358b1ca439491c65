package queue

import (
	"github.com/storhfs/storhfs/core/phpjson"
)

// jobState is the list a job is on. Every job in state.jobs is on exactly one.
type jobState uint8

const (
	statePending jobState = iota + 1
	stateProcessing
	stateDone
)

// payloadRef is where a job's payload lives: decoded in memory (Queue) or as
// the offset of the enqueue line that set it (Reader, which re-reads it).
// The zero value means "no payload" (PHP: payloads[id] unset, claimers see []).
type payloadRef struct {
	val *phpjson.Array
	off int64 // start of the enqueue line + 1 (0 = none)
	n   int32 // that line's length in bytes
	enc int32 // Reader: the payload's length as the views write it (appendViewPayload)
}

func (p payloadRef) present() bool { return p.val != nil || p.off != 0 }

// job is one id's state. prev/next link it into its state's list.
type job struct {
	id      string
	payload payloadRef // pending/processing only
	at      int64      // processing: claimed_at; done: completed_at
	state   jobState
	// clock: at is the replay's clock reading, standing in for the missing
	// ts of the event that set it (PHP: time() at replay), not a logged time.
	clock bool
	prev  *job
	next  *job
}

// jobList is an intrusive doubly linked list in PHP map insertion order.
type jobList struct {
	head, tail *job
	n          int
}

func (l *jobList) pushBack(j *job) {
	j.prev, j.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = j
	} else {
		l.head = j
	}
	l.tail = j
	l.n++
}

func (l *jobList) remove(j *job) {
	if j.prev != nil {
		j.prev.next = j.next
	} else {
		l.head = j.next
	}
	if j.next != nil {
		j.next.prev = j.prev
	} else {
		l.tail = j.prev
	}
	j.prev, j.next = nil, nil
	l.n--
}

// state is the queue state rebuilt from queue.log (docs/format/queue.md §4).
//
// The pending list is the effective claim order (A6): every event that makes
// a job pending (enqueue, effective requeue) moves it to the back, which is
// "each pending id at its last pending_order occurrence". processing and
// done keep PHP's map order (done[id] = ts on an id already done keeps its
// place).
type state struct {
	jobs       map[string]*job
	pending    jobList
	processing jobList
	done       jobList
}

func newState() *state { return &state{jobs: make(map[string]*job)} }

func (s *state) list(st jobState) *jobList {
	switch st {
	case statePending:
		return &s.pending
	case stateProcessing:
		return &s.processing
	default:
		return &s.done
	}
}

func (s *state) newJob(id string) *job {
	j := &job{id: id}
	s.jobs[id] = j
	return j
}

func (s *state) detach(j *job) { s.list(j.state).remove(j) }

func (s *state) forget(j *job) {
	s.detach(j)
	delete(s.jobs, j.id)
}

// enqueue: (re)sets the payload and makes the job pending at the back,
// whatever it was before.
func (s *state) enqueue(id string, p payloadRef) {
	j := s.jobs[id]
	if j == nil {
		j = s.newJob(id)
	} else {
		s.detach(j)
	}
	j.payload, j.state, j.at, j.clock = p, statePending, 0, false
	s.pending.pushBack(j)
}

// claim: pending -> processing (claimed_at = ts); otherwise a no-op.
func (s *state) claim(id string, ts int64) *job {
	j := s.jobs[id]
	if j == nil || j.state != statePending {
		return nil
	}
	return s.claimJob(j, ts)
}

// claimJob moves the pending job j to processing.
func (s *state) claimJob(j *job, ts int64) *job {
	s.pending.remove(j)
	j.state, j.at, j.clock = stateProcessing, ts, false
	s.processing.pushBack(j)
	return j
}

// complete: leaves pending/processing whatever the state, drops the payload;
// done=true records (or re-times, in place) done[id] = ts, done=false
// forgets the id. Returns the done job (nil when the id was forgotten).
func (s *state) complete(id string, done bool, ts int64) *job {
	j := s.jobs[id]
	switch {
	case j != nil:
		return s.completeJob(j, done, ts)
	case done:
		j = s.newJob(id)
		j.state, j.at = stateDone, ts
		s.done.pushBack(j)
		return j
	}
	return nil
}

// lookup returns s.jobs[id] (nil when unknown). Ids completed in claim
// order (a worker completing what it claimed) are found at the head of the
// processing list without a map lookup: every listed job is s.jobs[j.id].
func (s *state) lookup(id string) *job {
	if j := s.processing.head; j != nil && j.id == id {
		return j
	}
	return s.jobs[id]
}

// completeJob is complete for a job the state holds.
func (s *state) completeJob(j *job, done bool, ts int64) *job {
	switch {
	case !done:
		s.forget(j)
		return nil
	case j.state == stateDone:
		j.at, j.clock = ts, false
	default:
		s.detach(j)
		j.payload, j.state, j.at, j.clock = payloadRef{}, stateDone, ts, false
		s.done.pushBack(j)
	}
	return j
}

// requeue: processing -> back of pending (payload kept); otherwise a no-op.
func (s *state) requeue(id string) {
	j := s.jobs[id]
	if j == nil || j.state != stateProcessing {
		return
	}
	s.processing.remove(j)
	j.state, j.at, j.clock = statePending, 0, false
	s.pending.pushBack(j)
}

// purge: forgets a done id; for any other state only drops the payload.
func (s *state) purge(id string) {
	j := s.jobs[id]
	if j == nil {
		return
	}
	if j.state == stateDone {
		s.forget(j)
		return
	}
	j.payload = payloadRef{}
}

// apply applies one decoded event; now stands in for a missing ts (and the
// job it stamps is marked clock).
func (s *state) apply(ev *Event, p payloadRef, now int64) {
	ts := now
	if ev.HasTS {
		ts = ev.TS
	}
	switch ev.Op {
	case OpEnqueue:
		s.enqueue(ev.ID, p)
	case OpClaim:
		if j := s.claim(ev.ID, ts); j != nil {
			j.clock = !ev.HasTS
		}
	case OpComplete:
		if j := s.complete(ev.ID, ev.Done, ts); j != nil {
			j.clock = !ev.HasTS
		}
	case OpRequeue:
		s.requeue(ev.ID)
	case OpPurge:
		s.purge(ev.ID)
	}
}

// Counts is the queue's counts() result.
type Counts struct {
	Pending, Processing, Done int
}

func (s *state) counts() Counts {
	return Counts{Pending: s.pending.n, Processing: s.processing.n, Done: s.done.n}
}

// clone returns a copy of s sharing no job with it: applying events to the
// copy leaves s, and every view walking s's lists, untouched. Jobs whose at
// came from the replay clock take now, as a replay at now would stamp them.
func (s *state) clone(now int64) *state {
	c := &state{jobs: make(map[string]*job, len(s.jobs))}
	arena := make([]job, 0, len(s.jobs)) // every job is on exactly one list
	for _, l := range [...]struct{ from, to *jobList }{
		{&s.pending, &c.pending}, {&s.processing, &c.processing}, {&s.done, &c.done},
	} {
		for j := l.from.head; j != nil; j = j.next {
			arena = append(arena, *j)
			k := &arena[len(arena)-1]
			if k.clock {
				k.at = now
			}
			c.jobs[k.id] = k
			l.to.pushBack(k)
		}
	}
	return c
}
