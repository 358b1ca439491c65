package queue

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/internal/conformance"
)

func TestConformance(t *testing.T) {
	t.Run("queue", func(t *testing.T) {
		conformance.Run(t, "queue", newQueueExecutor, conformance.Options{})
	})
}

// queueExecutor runs the queue ops of README 4.1/4.4. Each op's "now" pins
// the clock every open queue reads while that op runs.
type queueExecutor struct {
	root string
	now  int64
	conformance.Stores[*Queue]
}

func newQueueExecutor(root string) conformance.Executor {
	return &queueExecutor{root: root}
}

func (e *queueExecutor) clock() time.Time { return time.Unix(e.now, 0) }

func (e *queueExecutor) Exec(op *phpjson.Array, _ *conformance.Env) (phpjson.Value, error) {
	e.now = conformance.OpIntOr(op, "now", time.Now().Unix())
	return e.Dispatch(op, e.open, e.run)
}

func (e *queueExecutor) open(coll string, op *phpjson.Array) (*Queue, error) {
	return Open(e.root, coll, Options{Now: e.clock, NewID: conformance.IDSequence(op)})
}

func (e *queueExecutor) run(q *Queue, name string, op *phpjson.Array) (phpjson.Value, error) {
	switch name {
	case "enqueue":
		payload := conformance.OpArray(op, "payload")
		if payload == nil {
			return nil, errors.New("executor: enqueue payload must be an array")
		}
		return q.Enqueue(payload, conformance.OpString(op, "id"))
	case "enqueueMany":
		var jobs []Job
		for _, v := range conformance.OpList(op, "jobs") {
			jobs = append(jobs, JobFromValue(v))
		}
		ids, err := q.EnqueueMany(jobs)
		return conformance.ListResult(ids, err, func(id string) string { return id })
	case "claim":
		rec, err := q.Claim()
		return conformance.NullableResult(rec, err, recordValue)
	case "claimMany":
		recs, err := q.ClaimMany(int(conformance.OpIntOr(op, "limit", 0)))
		return conformance.ListResult(recs, err, recordValue)
	case "complete":
		return nil, q.Complete(conformance.OpString(op, "id"), keepDone(op))
	case "completeMany":
		var ids []string
		for _, v := range conformance.OpList(op, "ids") {
			id, _ := v.(string)
			ids = append(ids, id)
		}
		return conformance.IntResult(q.CompleteMany(ids, keepDone(op)))
	case "requeue_timed_out":
		return conformance.IntResult(q.RequeueTimedOut(conformance.OpIntOr(op, "timeout_s", 0)))
	case "purgeDone":
		return conformance.IntResult(q.PurgeDone(conformance.OpIntOr(op, "older_than_s", 0)))
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
		r, err := q.Repair(conformance.OpIntOr(op, "timeout_s", 3600))
		return r.PHP(), err
	}
	return nil, fmt.Errorf("executor: unknown queue op %q", name)
}

// keepDone is a complete op's "keep_done", default true.
func keepDone(op *phpjson.Array) bool {
	b, ok := conformance.OpValue(op, "keep_done").(bool)
	return !ok || b
}

func recordValue(r Record) *phpjson.Array { return conformance.RecordValue(r.ID, r.Payload) }

// JobFromValue applies PHP enqueueMany's row rule: id is row.id when that is
// a string; the payload is row.payload when that is an array, otherwise the
// whole row (docs/format/queue.md §5.2). A row that is not an array gets a
// generated id and an empty payload.
func JobFromValue(v phpjson.Value) Job {
	row, ok := v.(*phpjson.Array)
	if !ok {
		return Job{Payload: phpjson.NewArray(0)}
	}
	var j Job
	if id, ok := row.Lookup("id"); ok {
		j.ID, _ = id.(string)
	}
	if p, ok := row.Lookup("payload"); ok {
		j.Payload, _ = p.(*phpjson.Array)
	}
	if j.Payload == nil {
		j.Payload = row
	}
	return j
}
