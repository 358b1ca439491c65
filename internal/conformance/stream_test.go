package conformance

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// recordingQuery logs the StreamQuery calls it gets and fails the one
// named by failOn.
type recordingQuery struct {
	calls  []string
	failOn string
	skip   func(key string, err error)
}

func (q *recordingQuery) call(name string, args ...any) error {
	q.calls = append(q.calls, strings.TrimSpace(name+" "+fmt.Sprint(args...)))
	if name == q.failOn {
		return errors.New(name + " threw")
	}
	return nil
}

func (q *recordingQuery) After(id string) error { return q.call("after", id) }

func (q *recordingQuery) TimeRangeMs(from, until *int64) error {
	return q.call("time_range_ms", show(from), ",", show(until))
}

func (q *recordingQuery) WhereEqual(field string, v phpjson.Value) error {
	return q.call("where_equal", field, ",", v)
}

func (q *recordingQuery) Limit(n int) error { return q.call("limit", n) }

func (q *recordingQuery) ContinueOnError(skip func(string, error)) {
	q.skip = skip
	_ = q.call("continue_on_error")
}

func show(p *int64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func TestStreamAppliesQueryInOrder(t *testing.T) {
	cases := []struct {
		query string
		calls string // "; "-joined
	}{
		{``, ``},
		{`,"query":null`, ``},
		{`,"query":{}`, ``},
		{`,"query":{"limit":2,"after":"x"}`, `after x; limit 2`},
		{`,"query":{"from_ms":5}`, `time_range_ms 5,null`},
		{`,"query":{"until_ms":7}`, `time_range_ms null,7`},
		{`,"query":{"from_ms":null,"until_ms":null}`, `time_range_ms null,null`},
		{`,"query":{"from_ms":"5","until_ms":1.5}`, `time_range_ms null,null`},
		{`,"query":{"after":7}`, `after`},
		{`,"query":{"where_equal":[]}`, ``},
		{`,"query":{"where_equal":[["a",1],["b",null],[3,"c"]]}`, `where_equal a,1; where_equal b,<nil>; where_equal ,c`},
		{`,"query":{"continue_on_error":false}`, ``},
		{`,"query":{"continue_on_error":1}`, ``},
		{`,"query":{"continue_on_error":true,"limit":0,"where_equal":[["k","v"]],"until_ms":9,"after":"a"}`,
			`after a; time_range_ms null,9; where_equal k,v; limit 0; continue_on_error`},
	}
	for _, c := range cases {
		q := &recordingQuery{}
		if _, err := Stream(mustOp(t, `{"op":"stream"`+c.query+`}`), q, func(Emit) error { return nil }); err != nil {
			t.Errorf("%s: %v", c.query, err)
		}
		if got := strings.Join(q.calls, "; "); got != c.calls {
			t.Errorf("%s: calls %q, want %q", c.query, got, c.calls)
		}
	}
}

func TestStreamStopsAtFirstError(t *testing.T) {
	const query = `{"op":"stream","query":{"after":"a","from_ms":1,"where_equal":[["k",1],["l",2]],"limit":3,"continue_on_error":true}}`
	cases := []struct {
		failOn string
		calls  int // calls made, the failing one included
	}{
		{"after", 1},
		{"time_range_ms", 2},
		{"where_equal", 3},
		{"limit", 5},
	}
	for _, c := range cases {
		q := &recordingQuery{failOn: c.failOn}
		ran := false
		v, err := Stream(mustOp(t, query), q, func(Emit) error { ran = true; return nil })
		if err == nil || err.Error() != c.failOn+" threw" || v != nil {
			t.Errorf("%s: got %#v, %v", c.failOn, v, err)
		}
		if ran || len(q.calls) != c.calls {
			t.Errorf("%s: ran %v after calls %q", c.failOn, ran, q.calls)
		}
	}
}

func TestStreamRejectsMalformedQuery(t *testing.T) {
	for _, query := range []string{
		`{"where_equal":"k"}`,
		`{"where_equal":null}`,
		`{"where_equal":["k"]}`,
		`{"where_equal":[["k"]]}`,
		`{"where_equal":[["k",1,2]]}`,
		`{"where_equal":[["k",1],"x"]}`,
		`{"limit":"2"}`,
		`{"limit":2.0}`,
		`{"limit":null}`,
	} {
		ran := false
		v, err := Stream(mustOp(t, `{"op":"stream","query":`+query+`}`), &recordingQuery{}, func(Emit) error { ran = true; return nil })
		if err == nil || !strings.HasPrefix(err.Error(), "executor: ") || v != nil || ran {
			t.Errorf("%s: got %#v, %v, ran %v; want an executor error", query, v, err, ran)
		}
	}
}

func TestStreamResultShapes(t *testing.T) {
	data := phpjson.NewArray(1)
	data.SetString("n", int64(1))
	twoRecords := func(emit Emit) { emit("a", data); emit("b", nil) }
	cases := []struct {
		name  string
		query string
		run   func(q *recordingQuery, emit Emit) error
		want  string
	}{
		{"plain", `{}`, func(_ *recordingQuery, emit Emit) error { twoRecords(emit); return nil },
			`[{"id":"a","data":{"n":1}},{"id":"b","data":[]}]`},
		{"empty", `{}`, func(*recordingQuery, Emit) error { return nil }, `[]`},
		{"throws", `{}`, func(_ *recordingQuery, emit Emit) error { twoRecords(emit); return errors.New("Corrupt record x") },
			`{"error":"Corrupt record x","partial":[{"id":"a","data":{"n":1}},{"id":"b","data":[]}]}`},
		{"throws at once", `{"continue_on_error":true}`, func(*recordingQuery, Emit) error { return errors.New("bad") },
			`{"error":"bad","partial":[]}`},
		{"skips", `{"continue_on_error":true}`, func(q *recordingQuery, emit Emit) error {
			emit("a", data)
			q.skip("seg-1.ndjson:10", errors.New("Syntax error"))
			emit("b", nil)
			q.skip("c", errors.New("gone"))
			return nil
		}, `{"records":[{"id":"a","data":{"n":1}},{"id":"b","data":[]}],"skipped":[{"key":"seg-1.ndjson:10","error":"Syntax error"},{"key":"c","error":"gone"}]}`},
		{"no skips", `{"continue_on_error":true}`, func(*recordingQuery, Emit) error { return nil },
			`{"records":[],"skipped":[]}`},
	}
	for _, c := range cases {
		q := &recordingQuery{}
		v, err := Stream(mustOp(t, `{"op":"stream","query":`+c.query+`}`), q, func(emit Emit) error { return c.run(q, emit) })
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := mustEncode(t, v); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
