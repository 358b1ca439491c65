package queue

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"storhfs/core/conformance"
	"storhfs/core/phpjson"
)

func TestConformance(t *testing.T) {
	t.Run("queue", func(t *testing.T) {
		conformance.Run(t, "queue", newQueueExecutor, conformance.Options{})
	})
}

// queueExecutor runs the queue ops of README 4.1/4.4. Each op's "now" pins
// the clock every open queue reads while that op runs.
type queueExecutor struct {
	root   string
	now    int64
	queues map[string]*Queue
}

func newQueueExecutor(root string) conformance.Executor {
	return &queueExecutor{root: root, queues: map[string]*Queue{}}
}

func (e *queueExecutor) clock() time.Time { return time.Unix(e.now, 0) }

func (e *queueExecutor) CloseAll() {
	for name, q := range e.queues {
		q.Close()
		delete(e.queues, name)
	}
}

func (e *queueExecutor) Exec(op *phpjson.Array, _ *conformance.Env) (phpjson.Value, error) {
	name := str(op, "op")
	if now, ok := member(op, "now").(int64); ok {
		e.now = now
	} else {
		e.now = time.Now().Unix()
	}
	coll := str(op, "collection")
	if name == "open" {
		return nil, e.open(coll, op)
	}
	q := e.queues[coll]
	if q == nil {
		return nil, fmt.Errorf("executor: queue %q is not open", coll)
	}
	switch name {
	case "close":
		delete(e.queues, coll)
		return nil, q.Close()
	case "enqueue":
		payload, ok := member(op, "payload").(*phpjson.Array)
		if !ok {
			return nil, errors.New("executor: enqueue payload must be an array")
		}
		return q.Enqueue(payload, str(op, "id"))
	case "enqueueMany":
		var jobs []Job
		for _, v := range list(op, "jobs") {
			jobs = append(jobs, JobFromValue(v))
		}
		ids, err := q.EnqueueMany(jobs)
		if err != nil {
			return nil, err
		}
		out := phpjson.NewArray(len(ids))
		for _, id := range ids {
			out.Append(id)
		}
		return out, nil
	case "claim":
		rec, err := q.Claim()
		if err != nil || rec == nil {
			return nil, err
		}
		return recordValue(*rec), nil
	case "claimMany":
		recs, err := q.ClaimMany(int(integer(op, "limit", 0)))
		if err != nil {
			return nil, err
		}
		out := phpjson.NewArray(len(recs))
		for _, r := range recs {
			out.Append(recordValue(r))
		}
		return out, nil
	case "complete":
		return nil, q.Complete(str(op, "id"), keepDone(op))
	case "completeMany":
		var ids []string
		for _, v := range list(op, "ids") {
			s, _ := v.(string)
			ids = append(ids, s)
		}
		n, err := q.CompleteMany(ids, keepDone(op))
		return int64(n), err
	case "requeue_timed_out":
		n, err := q.RequeueTimedOut(integer(op, "timeout_s", 0))
		return int64(n), err
	case "purgeDone":
		n, err := q.PurgeDone(integer(op, "older_than_s", 0))
		return int64(n), err
	case "counts":
		c, err := q.Counts()
		return c.PHP(), err
	case "stats":
		s, err := q.Stats()
		return s.PHP(), err
	case "verify":
		h, err := q.Verify()
		return h.PHP(), err
	case "health":
		h, err := q.Health()
		return h.PHP(), err
	case "repair":
		r, err := q.Repair(integer(op, "timeout_s", 3600))
		return r.PHP(), err
	}
	return nil, fmt.Errorf("executor: unknown queue op %q", name)
}

func (e *queueExecutor) open(coll string, op *phpjson.Array) error {
	opts := Options{Now: e.clock}
	if seq, ok := member(op, "id_sequence").(*phpjson.Array); ok {
		next := 0
		opts.NewID = func() (string, error) {
			if next >= seq.Len() {
				return "", errors.New("executor: id_sequence exhausted")
			}
			_, v := seq.At(next)
			next++
			s, _ := v.(string)
			return s, nil
		}
	}
	q, err := Open(e.root, coll, opts)
	if err != nil {
		return err
	}
	e.queues[coll] = q
	return nil
}

func recordValue(r Record) *phpjson.Array {
	a := phpjson.NewArray(2)
	a.SetString("id", r.ID)
	a.SetString("data", r.Payload)
	return a
}

func member(a *phpjson.Array, name string) phpjson.Value {
	v, _ := a.Lookup(name)
	return v
}

func str(a *phpjson.Array, name string) string {
	s, _ := member(a, name).(string)
	return s
}

func integer(a *phpjson.Array, name string, def int64) int64 {
	if i, ok := member(a, name).(int64); ok {
		return i
	}
	return def
}

func list(a *phpjson.Array, name string) []phpjson.Value {
	l, ok := member(a, name).(*phpjson.Array)
	if !ok {
		return nil
	}
	return l.Values()
}

func keepDone(op *phpjson.Array) bool {
	b, ok := member(op, "keep_done").(bool)
	return !ok || b
}
