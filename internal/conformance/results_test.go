package conformance

import (
	"errors"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

func TestRecordValue(t *testing.T) {
	data := phpjson.NewArray(1)
	data.SetString("k", "v")
	cases := []struct {
		id   string
		data *phpjson.Array
		want string
	}{
		{"018f8be0-2a38-7c31-aa8a-cd6b6e37c09b", data, `{"id":"018f8be0-2a38-7c31-aa8a-cd6b6e37c09b","data":{"k":"v"}}`},
		{"x", nil, `{"id":"x","data":[]}`},
		{"", phpjson.NewArray(0), `{"id":"","data":[]}`},
		{"a\"b", phpjson.NewList(int64(1)), `{"id":"a\"b","data":[1]}`},
	}
	for _, c := range cases {
		if got := mustEncode(t, RecordValue(c.id, c.data)); got != c.want {
			t.Errorf("RecordValue(%q) = %s, want %s", c.id, got, c.want)
		}
	}
}

func TestListOf(t *testing.T) {
	double := func(n int) int64 { return int64(2 * n) }
	cases := []struct {
		in   []int
		want string
	}{
		{nil, `[]`},
		{[]int{}, `[]`},
		{[]int{1, 2, 3}, `[2,4,6]`},
	}
	for _, c := range cases {
		if got := mustEncode(t, ListOf(c.in, double)); got != c.want {
			t.Errorf("ListOf(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestIntResult(t *testing.T) {
	boom := errors.New("boom")
	if v, err := IntResult(3, nil); v != int64(3) || err != nil {
		t.Errorf("IntResult(3, nil) = %#v, %v", v, err)
	}
	if v, err := IntResult(int64(-1), nil); v != int64(-1) || err != nil {
		t.Errorf("IntResult(int64(-1), nil) = %#v, %v", v, err)
	}
	if v, err := IntResult(7, boom); v != nil || err != boom {
		t.Errorf("IntResult(7, boom) = %#v, %v", v, err)
	}
}

// fakeRecord and fakeBuilder stand in for query.Record and query.Builder.
type fakeRecord struct{ id string }

type fakeBuilder struct {
	recs []fakeRecord
	err  error
}

func (b fakeBuilder) Get() ([]fakeRecord, error) { return b.recs, b.err }

func (b fakeBuilder) First() (*fakeRecord, error) {
	if b.err != nil || len(b.recs) == 0 {
		return nil, b.err
	}
	return &b.recs[0], nil
}

func (b fakeBuilder) Count() (int, error) { return len(b.recs), b.err }

func (b fakeBuilder) Explain() (*phpjson.Array, error) {
	if b.err != nil {
		return nil, b.err
	}
	a := phpjson.NewArray(1)
	a.SetString("store", "Fake")
	return a, nil
}

func TestQueryCallResults(t *testing.T) {
	two := fakeBuilder{recs: []fakeRecord{{"a"}, {"b"}}}
	failing := fakeBuilder{err: errors.New("Query failed")}
	record := func(r fakeRecord) *phpjson.Array { return RecordValue(r.id, nil) }
	cases := []struct {
		b       fakeBuilder
		call    string
		want    string // encoded result, or the error message
		wantErr bool
	}{
		{two, "get", `[{"id":"a","data":[]},{"id":"b","data":[]}]`, false},
		{two, "first", `{"id":"a","data":[]}`, false},
		{two, "count", `2`, false},
		{two, "explain", `{"store":"Fake"}`, false},
		{fakeBuilder{}, "get", `[]`, false},
		{fakeBuilder{}, "first", `null`, false},
		{fakeBuilder{}, "count", `0`, false},
		{failing, "get", "Query failed", true},
		{failing, "first", "Query failed", true},
		{failing, "count", "Query failed", true},
		{failing, "explain", "Query failed", true},
		{two, "delete", `executor: unknown query call "delete"`, true},
		{two, "", `executor: unknown query call ""`, true},
	}
	for _, c := range cases {
		v, err := queryCall(c.b, c.call, record)
		if c.wantErr {
			if err == nil || err.Error() != c.want || v != nil {
				t.Errorf("%q: got %#v, %v; want error %q", c.call, v, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.call, err)
			continue
		}
		if got := mustEncode(t, v); got != c.want {
			t.Errorf("%q = %s, want %s", c.call, got, c.want)
		}
	}
}

func TestQueryOpAppliesBuildSteps(t *testing.T) {
	base := fakeBuilder{recs: []fakeRecord{{"a"}, {"b"}, {"c"}}}
	// keep n of the records, n = len(build)
	apply := func(b fakeBuilder, steps *phpjson.Array) (fakeBuilder, error) {
		if steps == nil {
			return b, errors.New("no build")
		}
		if steps.Len() > len(b.recs) {
			return b, errors.New("Invalid limit")
		}
		return fakeBuilder{recs: b.recs[:steps.Len()]}, nil
	}
	record := func(r fakeRecord) *phpjson.Array { return RecordValue(r.id, nil) }
	cases := []struct {
		op   string
		want string // encoded result, or "error: <message>"
	}{
		{`{"op":"query","build":[1,2],"call":"count"}`, `2`},
		{`{"op":"query","build":[],"call":"get"}`, `[]`},
		{`{"op":"query","build":[1],"call":"get"}`, `[{"id":"a","data":[]}]`},
		{`{"op":"query","build":[1,2,3,4],"call":"get"}`, `error: Invalid limit`},
		{`{"op":"query","call":"get"}`, `error: no build`},
		{`{"op":"query","build":"x","call":"get"}`, `error: no build`},
		{`{"op":"query","build":[1]}`, `error: executor: unknown query call ""`},
	}
	for _, c := range cases {
		v, err := QueryOp(mustOp(t, c.op), base, apply, record)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = mustEncode(t, v)
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.op, got, c.want)
		}
	}
}

func TestResultShapes(t *testing.T) {
	boom := errors.New("Record x is corrupt")
	double := func(n int) int64 { return int64(2 * n) }
	seven := 7
	cases := []struct {
		name string
		run  func() (phpjson.Value, error)
		want string // encoded result, or "error: <message>"
	}{
		{"value", func() (phpjson.Value, error) { return Result(7, nil, double) }, `14`},
		{"value error", func() (phpjson.Value, error) { return Result(7, boom, double) }, `error: Record x is corrupt`},
		{"nullable", func() (phpjson.Value, error) { return NullableResult(&seven, nil, double) }, `14`},
		{"nullable null", func() (phpjson.Value, error) { return NullableResult(nil, nil, double) }, `null`},
		{"nullable error", func() (phpjson.Value, error) { return NullableResult(&seven, boom, double) }, `error: Record x is corrupt`},
		{"list", func() (phpjson.Value, error) { return ListResult([]int{1, 2}, nil, double) }, `[2,4]`},
		{"list empty", func() (phpjson.Value, error) { return ListResult(nil, nil, double) }, `[]`},
		{"list error", func() (phpjson.Value, error) { return ListResult([]int{1}, boom, double) }, `error: Record x is corrupt`},
	}
	for _, c := range cases {
		v, err := c.run()
		got := ""
		if err != nil {
			got = "error: " + err.Error()
			if v != nil {
				t.Errorf("%s: value %#v alongside the error", c.name, v)
			}
		} else {
			got = mustEncode(t, v)
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}
