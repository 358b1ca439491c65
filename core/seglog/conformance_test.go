package seglog

import (
	"fmt"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/query"
	"github.com/storhfs/storhfs/internal/conformance"
)

func TestConformance(t *testing.T) {
	t.Run("log", func(t *testing.T) {
		conformance.Run(t, "log", newLogExecutor, conformance.Options{})
	})
}

// logExecutor maps the corpus ops (README 4.1, 4.3) onto Log.
type logExecutor struct {
	root string
	now  time.Time // pinned by an op's "now"; wall clock otherwise
	conformance.Stores[*Log]
}

func newLogExecutor(root string) conformance.Executor {
	return &logExecutor{root: root}
}

func (x *logExecutor) clock() time.Time {
	if !x.now.IsZero() {
		return x.now
	}
	return time.Now()
}

func (x *logExecutor) Exec(op *phpjson.Array, _ *conformance.Env) (phpjson.Value, error) {
	x.now = time.Time{}
	if now, ok := conformance.OpInt(op, "now"); ok {
		x.now = time.Unix(now, 0)
	}
	return x.Dispatch(op, x.open, x.run)
}

func (x *logExecutor) run(l *Log, name string, op *phpjson.Array) (phpjson.Value, error) {
	switch name {
	case "put":
		data := conformance.OpArray(op, "data")
		if data == nil {
			return nil, fmt.Errorf("put: data is not an array")
		}
		r, err := l.Put(data, conformance.OpString(op, "id"))
		return conformance.Result(r, err, recordValue)
	case "get":
		r, err := l.Get(conformance.OpString(op, "id"))
		return conformance.NullableResult(r, err, recordValue)
	case "delete":
		return nil, l.Delete(conformance.OpString(op, "id"))
	case "appendMany":
		recs, err := l.AppendMany(conformance.OpList(op, "rows"))
		return conformance.ListResult(recs, err, recordValue)
	case "appendStream":
		return conformance.IntResult(l.AppendStream(conformance.RowFeed(conformance.OpList(op, "rows"))))
	case "stream":
		var q StreamQuery
		return conformance.Stream(op, logStreamQuery{&q}, func(emit conformance.Emit) error {
			return l.Stream(q, func(r Record) error { emit(r.ID, r.Data); return nil })
		})
	case "query":
		return conformance.QueryOp(op, l.Query(), conformance.ApplySteps[*query.Builder], queryRecordValue)
	case "compact":
		return nil, l.Compact()
	case "recover":
		return nil, l.Recover()
	case "stats":
		st, err := l.Stats()
		return conformance.Result(st, err, Stats.Array)
	case "verify", "health":
		h, err := l.Verify()
		return conformance.Result(h, err, Health.Array)
	case "repair":
		return l.Repair()
	case "retain":
		return x.retain(l, op)
	}
	return nil, fmt.Errorf("unknown log op %q", name)
}

func (x *logExecutor) open(coll string, op *phpjson.Array) (*Log, error) {
	opts := Options{Now: x.clock, NewID: conformance.IDSequence(op), Partition: conformance.OpString(op, "partition")}
	if v, ok := conformance.OpInt(op, "max_segment_bytes"); ok {
		opts.MaxSegmentBytes = v
		if v <= 0 {
			opts.MaxSegmentBytes = 1 // rejected like PHP
		}
	}
	if v, ok := conformance.OpInt(op, "sparse_index_interval"); ok {
		opts.SparseIndexInterval = v
		if v <= 0 {
			opts.SparseIndexInterval = -1 // rejected like PHP
		}
	}
	if v, ok := conformance.OpInt(op, "partition_timestamp_ms"); ok {
		opts.PartitionTimestampMs = &v
	}
	return Open(x.root, coll, opts)
}

// retain runs retain()->olderThanMs(x)->olderThanDays(d)->compact().
func (x *logExecutor) retain(l *Log, op *phpjson.Array) (phpjson.Value, error) {
	r := l.Retain()
	if ms, ok := conformance.OpInt(op, "older_than_ms"); ok {
		r.OlderThanMs(ms)
	}
	if d, ok := conformance.OpInt(op, "older_than_days"); ok {
		if err := r.OlderThanDays(d); err != nil {
			return nil, err
		}
	}
	return conformance.IntResult(r.Compact())
}

// logStreamQuery is StreamQuery as the harness's StreamQuery (README 4.5);
// After and Limit are StreamQuery's own.
type logStreamQuery struct{ *StreamQuery }

func (q logStreamQuery) TimeRangeMs(fromMs, untilMs *int64) error {
	q.StreamQuery.TimeRangeMs(fromMs, untilMs)
	return nil
}

func (q logStreamQuery) WhereEqual(field string, value phpjson.Value) error {
	q.StreamQuery.WhereEqual(field, value)
	return nil
}

func (q logStreamQuery) ContinueOnError(skip func(key string, err error)) {
	q.StreamQuery.ContinueOnError = skip
}

func recordValue(r Record) *phpjson.Array { return conformance.RecordValue(r.ID, r.Data) }

func queryRecordValue(r query.Record) *phpjson.Array { return conformance.RecordValue(r.ID, r.Data) }
