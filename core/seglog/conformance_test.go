package seglog

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"storhfs/core/conformance"
	"storhfs/core/phpjson"
	"storhfs/core/query"
)

func TestConformance(t *testing.T) {
	t.Run("log", func(t *testing.T) {
		conformance.Run(t, "log", newLogExecutor, conformance.Options{})
	})
}

// logExecutor maps the corpus ops (README 4.1, 4.3) onto Log.
type logExecutor struct {
	root string
	logs map[string]*Log
	now  time.Time // pinned by an op's "now"; wall clock otherwise
}

func newLogExecutor(root string) conformance.Executor {
	return &logExecutor{root: root, logs: map[string]*Log{}}
}

func (x *logExecutor) clock() time.Time {
	if !x.now.IsZero() {
		return x.now
	}
	return time.Now()
}

func (x *logExecutor) CloseAll() {
	for name, l := range x.logs {
		l.Close()
		delete(x.logs, name)
	}
}

func member(op *phpjson.Array, name string) (phpjson.Value, bool) { return op.Lookup(name) }

func str(op *phpjson.Array, name string) string {
	v, _ := op.Lookup(name)
	s, _ := v.(string)
	return s
}

func intMember(op *phpjson.Array, name string) (int64, bool) {
	v, ok := op.Lookup(name)
	if !ok {
		return 0, false
	}
	i, ok := v.(int64)
	return i, ok
}

func recordValue(r Record) *phpjson.Array {
	a := phpjson.NewArray(2)
	a.SetString("id", r.ID)
	a.SetString("data", r.Data)
	return a
}

func (x *logExecutor) Exec(op *phpjson.Array, env *conformance.Env) (phpjson.Value, error) {
	x.now = time.Time{}
	if now, ok := intMember(op, "now"); ok {
		x.now = time.Unix(now, 0)
	}
	name := str(op, "op")
	coll := str(op, "collection")
	if name == "open" {
		return nil, x.open(op, coll)
	}
	l, ok := x.logs[coll]
	if !ok {
		return nil, fmt.Errorf("collection %q is not open", coll)
	}
	switch name {
	case "close":
		delete(x.logs, coll)
		return nil, l.Close()
	case "put":
		data, _ := member(op, "data")
		arr, ok := data.(*phpjson.Array)
		if !ok {
			return nil, fmt.Errorf("put: data is not an array")
		}
		r, err := l.Put(arr, str(op, "id"))
		if err != nil {
			return nil, err
		}
		return recordValue(r), nil
	case "get":
		r, err := l.Get(str(op, "id"))
		if err != nil || r == nil {
			return nil, err
		}
		return recordValue(*r), nil
	case "delete":
		return nil, l.Delete(str(op, "id"))
	case "appendMany":
		recs, err := l.AppendMany(rows(op))
		if err != nil {
			return nil, err
		}
		out := phpjson.NewArray(len(recs))
		for _, r := range recs {
			out.Append(recordValue(r))
		}
		return out, nil
	case "appendStream":
		rs := rows(op)
		i := 0
		n, err := l.AppendStream(func() (phpjson.Value, bool, error) {
			if i >= len(rs) {
				return nil, false, nil
			}
			i++
			return rs[i-1], true, nil
		})
		if err != nil {
			return nil, err
		}
		return int64(n), nil
	case "stream":
		return x.stream(l, op)
	case "query":
		return x.query(l, op)
	case "compact":
		return nil, l.Compact()
	case "recover":
		return nil, l.Recover()
	case "stats":
		st, err := l.Stats()
		if err != nil {
			return nil, err
		}
		return st.Array(), nil
	case "verify", "health":
		h, err := l.Verify()
		if err != nil {
			return nil, err
		}
		return h.Array(), nil
	case "repair":
		return l.Repair()
	case "retain":
		r := l.Retain()
		if ms, ok := intMember(op, "older_than_ms"); ok {
			r.OlderThanMs(ms)
		}
		if d, ok := intMember(op, "older_than_days"); ok {
			if err := r.OlderThanDays(d); err != nil {
				return nil, err
			}
		}
		n, err := r.Compact()
		if err != nil {
			return nil, err
		}
		return int64(n), nil
	}
	return nil, fmt.Errorf("unknown log op %q", name)
}

func rows(op *phpjson.Array) []phpjson.Value {
	v, _ := op.Lookup("rows")
	if a, ok := v.(*phpjson.Array); ok {
		return a.Values()
	}
	return nil
}

func (x *logExecutor) open(op *phpjson.Array, coll string) error {
	opts := Options{Now: x.clock}
	if v, ok := intMember(op, "max_segment_bytes"); ok {
		opts.MaxSegmentBytes = v
		if v <= 0 {
			opts.MaxSegmentBytes = 1 // rejected like PHP
		}
	}
	if v, ok := intMember(op, "sparse_index_interval"); ok {
		opts.SparseIndexInterval = v
		if v <= 0 {
			opts.SparseIndexInterval = -1 // rejected like PHP
		}
	}
	if v, ok := op.Lookup("partition"); ok && v != nil {
		s, _ := v.(string)
		opts.Partition = s
	}
	if v, ok := intMember(op, "partition_timestamp_ms"); ok {
		opts.PartitionTimestampMs = &v
	}
	if v, ok := op.Lookup("id_sequence"); ok {
		if a, ok := v.(*phpjson.Array); ok {
			seq := a.Values()
			opts.NewID = func() (string, error) {
				if len(seq) == 0 {
					return "", errors.New("id_sequence exhausted")
				}
				s, _ := seq[0].(string)
				seq = seq[1:]
				return s, nil
			}
		}
	}
	l, err := Open(x.root, coll, opts)
	if err != nil {
		return err
	}
	x.logs[coll] = l
	return nil
}

// stream runs a "stream" op (README 4.5).
func (x *logExecutor) stream(l *Log, op *phpjson.Array) (phpjson.Value, error) {
	var q StreamQuery
	qv, _ := op.Lookup("query")
	qa, _ := qv.(*phpjson.Array)
	skipped := phpjson.NewArray(0)
	continueOnError := false
	if qa != nil {
		if v, ok := qa.Lookup("after"); ok {
			s, _ := v.(string)
			if err := q.After(s); err != nil {
				return nil, err
			}
		}
		fromV, hasFrom := qa.Lookup("from_ms")
		untilV, hasUntil := qa.Lookup("until_ms")
		if hasFrom || hasUntil {
			var from, until *int64
			if f, ok := fromV.(int64); ok {
				from = &f
			}
			if u, ok := untilV.(int64); ok {
				until = &u
			}
			q.TimeRangeMs(from, until)
		}
		if v, ok := qa.Lookup("where_equal"); ok {
			if pairs, ok := v.(*phpjson.Array); ok {
				for _, p := range pairs.Values() {
					pa, _ := p.(*phpjson.Array)
					if pa == nil || pa.Len() != 2 {
						return nil, fmt.Errorf("where_equal: want [field, value]")
					}
					f, _ := pa.Values()[0].(string)
					q.WhereEqual(f, pa.Values()[1])
				}
			}
		}
		if v, ok := intMember(qa, "limit"); ok {
			if err := q.Limit(int(v)); err != nil {
				return nil, err
			}
		}
		if v, ok := qa.Lookup("continue_on_error"); ok && v == true {
			continueOnError = true
			q.ContinueOnError = func(loc string, err error) {
				s := phpjson.NewArray(2)
				s.SetString("key", loc)
				s.SetString("error", err.Error())
				skipped.Append(s)
			}
		}
	}
	recs := phpjson.NewArray(0)
	err := l.Stream(q, func(r Record) error {
		recs.Append(recordValue(r))
		return nil
	})
	if err != nil {
		out := phpjson.NewArray(2)
		out.SetString("error", err.Error())
		out.SetString("partial", recs)
		return out, nil
	}
	if continueOnError {
		out := phpjson.NewArray(2)
		out.SetString("records", recs)
		out.SetString("skipped", skipped)
		return out, nil
	}
	return recs, nil
}

// query runs a "query" op (README 4.6).
func (x *logExecutor) query(l *Log, op *phpjson.Array) (phpjson.Value, error) {
	bv, _ := op.Lookup("build")
	steps, _ := bv.(*phpjson.Array)
	b, err := query.ApplySteps(l.Query(), steps)
	if err != nil {
		return nil, err
	}
	toValue := func(r query.Record) *phpjson.Array {
		return recordValue(Record{ID: r.ID, Data: r.Data})
	}
	switch str(op, "call") {
	case "get":
		recs, err := b.Get()
		if err != nil {
			return nil, err
		}
		out := phpjson.NewArray(len(recs))
		for _, r := range recs {
			out.Append(toValue(r))
		}
		return out, nil
	case "first":
		r, err := b.First()
		if err != nil || r == nil {
			return nil, err
		}
		return toValue(*r), nil
	case "count":
		n, err := b.Count()
		if err != nil {
			return nil, err
		}
		return int64(n), nil
	case "explain":
		return b.Explain()
	}
	return nil, fmt.Errorf("unknown query call %q", str(op, "call"))
}
