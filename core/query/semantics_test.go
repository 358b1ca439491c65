package query

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

func tid(n int) string { return fmt.Sprintf("018f8be0-0001-7000-8000-%012d", n) }

// fixtureData is record n's data (ids tid(n)), mixed types on "v".
var fixtureData = []string{
	1:  `{"name":"alpha","kind":"page","tag":"x","v":10,"score":5}`,
	2:  `{"name":"beta","kind":"page","tag":"y","v":-3,"score":7}`,
	3:  `{"name":"gamma","kind":"post","tag":"x","v":"abc","score":5}`,
	4:  `{"name":"delta","kind":"post","tag":"y","v":null,"score":1}`,
	5:  `{"name":"epsilon","kind":"page","tag":"x","v":true,"score":9}`,
	6:  `{"name":"zeta","kind":"note","v":false,"score":3}`,
	7:  `{"name":"eta","kind":"page","tag":"z","v":7.5,"score":5}`,
	8:  `{"name":"theta","kind":"post","tag":"x","v":5,"score":2}`,
	9:  `{"name":"iota","kind":"note","tag":"y","v":[1],"score":8}`,
	10: `{"name":"kappa","kind":"page","tag":"x","v":6,"score":4}`,
	11: `{"name":"lambda","kind":"page","tag":"y","score":6}`,
	12: `{"name":"alphabet","kind":"post","tag":"z","v":1.0,"score":5.5}`,
	13: `{"name":"al","kind":"page","v":1,"score":-1}`,
	14: `{"name":"omega","kind":"note","tag":"w","v":{"a":1},"score":0}`,
	15: `{"name":"zero","kind":"post","v":0.0,"score":3}`,
	16: `{"name":"negzero","kind":"post","v":-0.0,"score":2,"a.b":1}`,
}

func mustDecode(t testing.TB, s string) phpjson.Value {
	t.Helper()
	v, err := phpjson.Decode([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

func fill(t testing.TB, put func(string, *phpjson.Array)) {
	for n := 1; n < len(fixtureData); n++ {
		put(tid(n), mustDecode(t, fixtureData[n]).(*phpjson.Array))
	}
}

// fixtures returns the same records as a plain source and as an indexed
// twin (name unique, kind and tag equality, v and score range).
func fixtures(t testing.TB) (*memSource, *memIndexed) {
	plain := newMemSource()
	fill(t, plain.put)
	ix := newMemIndexed()
	fill(t, ix.put)
	ix.define("name", true, false)
	ix.define("kind", false, false)
	ix.define("tag", false, false)
	ix.define("v", false, true)
	ix.define("score", false, true)
	return plain, ix
}

func val(t testing.TB, s string) phpjson.Value { return mustDecode(t, s) }

func ids(ns ...int) []string {
	out := []string{}
	for _, n := range ns {
		out = append(out, tid(n))
	}
	return out
}

func all16() []string {
	var ns []int
	for n := 1; n <= 16; n++ {
		ns = append(ns, n)
	}
	return ids(ns...)
}

func recIDs(recs []Record) []string {
	out := []string{}
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return out
}

func TestGetSemantics(t *testing.T) {
	v := func(s string) phpjson.Value { return val(t, s) }
	cases := []struct {
		name  string
		build func(*Builder) *Builder
		want  []string
	}{
		{"eq string", func(b *Builder) *Builder { return b.Where("kind", "eq", "page") }, ids(1, 2, 5, 7, 10, 11, 13)},
		{"eq int is not float", func(b *Builder) *Builder { return b.Where("v", "eq", int64(1)) }, ids(13)},
		{"eq float is not int", func(b *Builder) *Builder { return b.Where("v", "eq", 1.0) }, ids(12)},
		{"eq null needs present null", func(b *Builder) *Builder { return b.Where("v", "eq", nil) }, ids(4)},
		{"eq list", func(b *Builder) *Builder { return b.Where("v", "eq", v(`[1]`)) }, ids(9)},
		{"eq object", func(b *Builder) *Builder { return b.Where("v", "eq", v(`{"a":1}`)) }, ids(14)},
		{"eq 0.0 finds -0.0", func(b *Builder) *Builder { return b.Where("v", "eq", 0.0) }, ids(15, 16)},
		{"eq int 0 is not float zero", func(b *Builder) *Builder { return b.Where("v", "eq", int64(0)) }, ids()},
		{"eq bool", func(b *Builder) *Builder { return b.Where("v", "eq", true) }, ids(5)},
		{"neq", func(b *Builder) *Builder { return b.Where("kind", "neq", "page") }, ids(3, 4, 6, 8, 9, 12, 14, 15, 16)},
		{"neq includes missing", func(b *Builder) *Builder { return b.Where("tag", "neq", "x") }, ids(2, 4, 6, 7, 9, 11, 12, 13, 14, 15, 16)},
		{"in", func(b *Builder) *Builder { return b.Where("v", "in", v(`[5,"abc",true]`)) }, ids(3, 5, 8)},
		{"in with array element", func(b *Builder) *Builder { return b.Where("v", "in", v(`[[1],5]`)) }, ids(8, 9)},
		{"in object operand uses values", func(b *Builder) *Builder { return b.Where("kind", "in", v(`{"a":"note"}`)) }, ids(6, 9, 14)},
		{"in empty", func(b *Builder) *Builder { return b.Where("kind", "in", v(`[]`)) }, ids()},
		{"notIn includes missing", func(b *Builder) *Builder { return b.Where("tag", "notIn", v(`["x","y"]`)) }, ids(6, 7, 12, 13, 14, 15, 16)},
		{"gt mixed types", func(b *Builder) *Builder { return b.Where("v", "gt", int64(5)) }, ids(1, 4, 5, 6, 7, 9, 10, 14)},
		{"gte", func(b *Builder) *Builder { return b.Where("v", "gte", int64(5)) }, ids(1, 4, 5, 6, 7, 8, 9, 10, 14)},
		{"lt: strings and negatives", func(b *Builder) *Builder { return b.Where("v", "lt", int64(5)) }, ids(2, 3, 12, 13, 15, 16)},
		{"lte", func(b *Builder) *Builder { return b.Where("v", "lte", int64(5)) }, ids(2, 3, 8, 12, 13, 15, 16)},
		{"lt list operand", func(b *Builder) *Builder { return b.Where("v", "lt", v(`[2]`)) }, ids(1, 2, 3, 7, 8, 9, 10, 12, 13, 15, 16)},
		{"gt string operand", func(b *Builder) *Builder { return b.Where("v", "gt", "m") }, ids(1, 2, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16)},
		{"gt negative", func(b *Builder) *Builder { return b.Where("v", "gt", int64(-100)) }, ids(1, 2, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16)},
		{"between", func(b *Builder) *Builder { return b.Where("v", "between", int64(5), int64(10)) }, ids(1, 7, 8, 10)},
		{"between float bounds", func(b *Builder) *Builder { return b.Where("score", "between", 2.5, 5.0) }, ids(1, 3, 6, 7, 10, 15)},
		{"between upper true", func(b *Builder) *Builder { return b.Where("v", "between", int64(6), true) }, ids(1, 4, 5, 6, 7, 9, 10)},
		{"exists", func(b *Builder) *Builder { return b.Where("v", "exists") }, ids(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16)},
		{"missing", func(b *Builder) *Builder { return b.Where("v", "missing") }, ids(11)},
		{"prefix", func(b *Builder) *Builder { return b.Where("name", "prefix", "al") }, ids(1, 12, 13)},
		{"prefix range field", func(b *Builder) *Builder { return b.Where("v", "prefix", "a") }, ids(3)},
		{"prefix empty", func(b *Builder) *Builder { return b.Where("name", "prefix", "") }, all16()},
		{"prefix non-string value", func(b *Builder) *Builder { return b.Where("v", "prefix", "1") }, ids()},
		{"dotted name is a literal key", func(b *Builder) *Builder { return b.Where("a.b", "eq", int64(1)) }, ids(16)},
		{"id eq", func(b *Builder) *Builder { return b.Where("id", "eq", tid(3)) }, ids(3)},
		{"id eq invalid", func(b *Builder) *Builder { return b.Where("id", "eq", "not-a-uuid") }, ids()},
		{"id eq and other", func(b *Builder) *Builder { return b.Where("id", "eq", tid(3)).Where("kind", "eq", "page") }, ids()},
		{"id eq twice different", func(b *Builder) *Builder { return b.Where("id", "eq", tid(3)).Where("id", "eq", tid(4)) }, ids()},
		{"id eq below cursor", func(b *Builder) *Builder { return b.Where("id", "eq", tid(3)).Cursor(tid(3)) }, ids()},
		{"id in", func(b *Builder) *Builder {
			return b.Where("id", "in", v(fmt.Sprintf(`[%q,%q,1,"nope"]`, tid(2), tid(1))))
		}, ids(1, 2)},
		{"id gt", func(b *Builder) *Builder { return b.Where("id", "gt", tid(13)) }, ids(14, 15, 16)},
		{"two conditions", func(b *Builder) *Builder { return b.Where("kind", "eq", "page").Where("tag", "eq", "x") }, ids(1, 5, 10)},
		{"range pair", func(b *Builder) *Builder { return b.Where("score", "gte", int64(5)).Where("score", "lt", int64(8)) }, ids(1, 2, 3, 7, 11, 12)},
		{"orWhere", func(b *Builder) *Builder {
			return b.Where("kind", "eq", "page").OrWhere(func(q *Builder) *Builder { return q.Where("tag", "eq", "z") })
		}, ids(1, 2, 5, 7, 10, 11, 12, 13)},
		{"bare orWhere matches all", func(b *Builder) *Builder {
			return b.OrWhere(func(q *Builder) *Builder { return q.Where("kind", "eq", "note") })
		}, all16()},
		{"andWhere flattens", func(b *Builder) *Builder {
			return b.Where("kind", "eq", "post").AndWhere(func(q *Builder) *Builder {
				return q.Where("tag", "eq", "x").OrWhere(func(r *Builder) *Builder { return r.Where("tag", "eq", "z") })
			})
		}, ids()},
		{"where after orWhere goes to all groups", func(b *Builder) *Builder {
			return b.Where("kind", "eq", "post").OrWhere(func(q *Builder) *Builder { return q.Where("kind", "eq", "note") }).Where("score", "gt", int64(2))
		}, ids(3, 6, 9, 12, 15)},
		{"orderBy asc ties by id", func(b *Builder) *Builder { return b.OrderBy("score", "") }, ids(13, 14, 4, 8, 16, 6, 15, 10, 1, 3, 7, 12, 11, 2, 9, 5)},
		{"orderBy DESC ties by id", func(b *Builder) *Builder { return b.OrderBy("score", "DESC") }, ids(5, 9, 2, 11, 12, 1, 3, 7, 10, 6, 15, 8, 16, 4, 14, 13)},
		{"orderBy mixed types", func(b *Builder) *Builder { return b.OrderBy("v", "asc") }, ids(3, 2, 15, 16, 12, 13, 8, 10, 7, 1, 9, 6, 4, 11, 5, 14)},
		{"orderBy missing field", func(b *Builder) *Builder { return b.OrderBy("nothing", "desc").Limit(2) }, ids(1, 2)},
		{"orderBy id desc", func(b *Builder) *Builder { return b.OrderBy("id", "desc").Limit(2) }, ids(16, 15)},
		{"where orderBy limit", func(b *Builder) *Builder {
			return b.Where("score", "gte", int64(5)).OrderBy("score", "desc").Limit(3)
		}, ids(5, 9, 2)},
		{"limit", func(b *Builder) *Builder { return b.Limit(2) }, ids(1, 2)},
		{"page", func(b *Builder) *Builder { return b.Where("kind", "eq", "post").Page(2) }, ids(3, 4)},
		{"cursor", func(b *Builder) *Builder { return b.Cursor(tid(13)) }, ids(14, 15, 16)},
		{"cursor and index", func(b *Builder) *Builder { return b.Cursor(tid(5)).Where("kind", "eq", "page") }, ids(7, 10, 11, 13)},
		{"cursor before orderBy", func(b *Builder) *Builder { return b.Cursor(tid(12)).OrderBy("score", "asc") }, ids(13, 14, 16, 15)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plain, ix := fixtures(t)
			for _, src := range []Source{plain, ix} {
				got, err := tc.build(New(src)).Get()
				if err != nil {
					t.Fatalf("%T: %v", src, err)
				}
				if !reflect.DeepEqual(recIDs(got), tc.want) {
					t.Errorf("%T:\n got %v\nwant %v", src, recIDs(got), tc.want)
				}
				n, err := tc.build(New(src)).Count()
				if err != nil || n != len(tc.want) {
					t.Errorf("%T: count = %d, %v; want %d", src, n, err, len(tc.want))
				}
				first, err := tc.build(New(src)).First()
				switch {
				case err != nil:
					t.Errorf("%T: first: %v", src, err)
				case len(tc.want) == 0 && first != nil:
					t.Errorf("%T: first = %s, want nil", src, first.ID)
				case len(tc.want) > 0 && (first == nil || first.ID != tc.want[0]):
					t.Errorf("%T: first = %v, want %s", src, first, tc.want[0])
				}
			}
		})
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func(*Builder) *Builder
		want  string
	}{
		{"limit 0", func(b *Builder) *Builder { return b.Limit(0) }, "Query limit must be at least 1."},
		{"page -1", func(b *Builder) *Builder { return b.Page(-1) }, "Query limit must be at least 1."},
		{"direction", func(b *Builder) *Builder { return b.OrderBy("score", "up") }, "Query order direction must be asc or desc."},
		{"cursor", func(b *Builder) *Builder { return b.Cursor("nope") }, "Invalid UUIDv7 value."},
		{"cursor with newline", func(b *Builder) *Builder { return b.Cursor(tid(1) + "\n") }, "Invalid UUIDv7 value."},
		{"empty field", func(b *Builder) *Builder { return b.Where(" \t\n\x00\x0B", "eq", int64(1)) }, "Query field cannot be empty."},
		{"operator", func(b *Builder) *Builder { return b.Where("v", "like", "x") }, "Unsupported query operator: like"},
		{"empty field before operator", func(b *Builder) *Builder { return b.Where("", "like", "x") }, "Query field cannot be empty."},
		{"andWhere nil", func(b *Builder) *Builder { return b.AndWhere(func(*Builder) *Builder { return nil }) }, "andWhere callback must return a QueryBuilder."},
		{"orWhere nil", func(b *Builder) *Builder { return b.OrWhere(func(*Builder) *Builder { return nil }) }, "orWhere callback must return a QueryBuilder."},
		{"error inside branch", func(b *Builder) *Builder {
			return b.OrWhere(func(q *Builder) *Builder { return q.Limit(0) })
		}, "Query limit must be at least 1."},
		{"first error wins", func(b *Builder) *Builder { return b.Limit(0).OrderBy("x", "up") }, "Query limit must be at least 1."},
		{"in needs array", func(b *Builder) *Builder { return b.Where("v", "in", int64(1)) }, "query operator in: operand must be an array"},
		{"prefix needs string", func(b *Builder) *Builder { return b.Where("v", "prefix", int64(1)) }, "query operator prefix: operand must be a string"},
		{"between arity", func(b *Builder) *Builder { return b.Where("v", "between", int64(1)) }, "query operator between: wrong number of operands"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plain, _ := fixtures(t)
			b := tc.build(New(plain))
			_, errGet := b.Get()
			_, errFirst := b.First()
			_, errCount := b.Count()
			_, errExplain := b.Explain()
			for i, err := range []error{errGet, errFirst, errCount, errExplain} {
				if err == nil || err.Error() != tc.want {
					t.Errorf("call %d: err = %v, want %q", i, err, tc.want)
				}
			}
		})
	}
	// PHP trim() does not strip a no-break space: such a field is legal.
	plain, _ := fixtures(t)
	if _, err := New(plain).Where("\u00a0", "eq", int64(1)).Get(); err != nil {
		t.Errorf("nbsp field: %v", err)
	}
	var unsupported *UnsupportedOperatorError
	if _, err := New(plain).Where("v", "like", "x").Get(); !errors.As(err, &unsupported) {
		t.Errorf("want *UnsupportedOperatorError, got %T", err)
	}
}

func TestBuilderIsImmutable(t *testing.T) {
	plain, _ := fixtures(t)
	base := New(plain).Where("kind", "eq", "page").OrWhere(func(q *Builder) *Builder { return q.Where("tag", "eq", "z") })
	narrowed := base.Where("score", "gt", int64(5))
	_ = base.Limit(1).OrderBy("score", "desc").Cursor(tid(3))
	got, err := base.Get()
	if err != nil || len(got) != 8 {
		t.Fatalf("base changed: %d records, %v", len(got), err)
	}
	got, _ = narrowed.Get()
	if !reflect.DeepEqual(recIDs(got), ids(2, 5, 11, 12)) {
		t.Errorf("narrowed = %v", recIDs(got))
	}
}

func TestIndexUse(t *testing.T) {
	_, ix := fixtures(t)
	got, err := New(ix).Where("kind", "eq", "note").Get()
	if err != nil || len(got) != 3 {
		t.Fatalf("got %d, %v", len(got), err)
	}
	if ix.scanned != 0 || ix.gets != 3 {
		t.Errorf("eq via index: scanned %d, gets %d; want 0, 3", ix.scanned, ix.gets)
	}
	ix.scanned, ix.gets = 0, 0
	if _, err := New(ix).Where("v", "gt", int64(5)).Get(); err != nil {
		t.Fatal(err)
	}
	if ix.scanned != 16 {
		t.Errorf("gt must scan (array values can match): scanned %d", ix.scanned)
	}
	ix.scanned, ix.gets = 0, 0
	if _, err := New(ix).Where("v", "lt", int64(5)).Where("kind", "neq", "x").Get(); err != nil {
		t.Fatal(err)
	}
	if ix.scanned != 0 {
		t.Errorf("lt on a range field should use the index: scanned %d", ix.scanned)
	}
	ix.scanned, ix.gets = 0, 0
	q := New(ix).Where("kind", "eq", "page").OrWhere(func(q *Builder) *Builder { return q.Where("v", "gt", int64(6)) })
	if _, err := q.Get(); err != nil {
		t.Fatal(err)
	}
	if ix.scanned != 16 {
		t.Errorf("a group without usable condition must scan: scanned %d", ix.scanned)
	}
}

func TestEarlyStop(t *testing.T) {
	plain, _ := fixtures(t)
	got, err := New(plain).Where("kind", "eq", "page").Limit(2).Get()
	if err != nil || !reflect.DeepEqual(recIDs(got), ids(1, 2)) {
		t.Fatalf("got %v, %v", recIDs(got), err)
	}
	if plain.scanned != 2 {
		t.Errorf("scanned %d records, want 2", plain.scanned)
	}
	plain.scanned = 0
	if n, _ := New(plain).Limit(3).Count(); n != 3 || plain.scanned != 3 {
		t.Errorf("count limit 3: n=%d scanned=%d", n, plain.scanned)
	}
	plain.scanned = 0
	if _, err := New(plain).Where("kind", "eq", "page").OrderBy("score", "asc").Limit(2).Get(); err != nil {
		t.Fatal(err)
	}
	if plain.scanned != 16 {
		t.Errorf("orderBy must see every record: scanned %d", plain.scanned)
	}
	// Stream: the callback can stop early.
	plain.scanned = 0
	n := 0
	err = New(plain).Stream(func(Record) error {
		n++
		if n == 4 {
			return ErrStop
		}
		return nil
	})
	if err != nil || n != 4 || plain.scanned != 4 {
		t.Errorf("stream stop: err=%v n=%d scanned=%d", err, n, plain.scanned)
	}
	boom := errors.New("boom")
	if err := New(plain).Stream(func(Record) error { return boom }); err != boom {
		t.Errorf("stream error = %v", err)
	}
}

func TestSourceOrderIsKept(t *testing.T) {
	// SegmentedLog streams in write order, not id order.
	plain, _ := fixtures(t)
	plain.class = "Storh\\SegmentedLogStore"
	plain.order = []string{tid(9), tid(3), tid(1), tid(12)}
	got, _ := New(plain).Where("score", "gte", int64(5)).Get()
	if !reflect.DeepEqual(recIDs(got), ids(9, 3, 1, 12)) {
		t.Errorf("get = %v", recIDs(got))
	}
	got, _ = New(plain).OrderBy("score", "desc").Get()
	if !reflect.DeepEqual(recIDs(got), ids(9, 12, 3, 1)) {
		t.Errorf("orderBy desc = %v (ties keep source order)", recIDs(got))
	}
	ex, err := New(plain).Where("kind", "eq", "page").Explain()
	if err != nil {
		t.Fatal(err)
	}
	if s := string(mustEncode(t, ex)); s != `{"store":"Storh\\SegmentedLogStore","plan":"full_scan","indexes":[],"groups":1}` {
		t.Errorf("explain = %s", s)
	}
}

func mustEncode(t testing.TB, v phpjson.Value) []byte {
	t.Helper()
	b, err := phpjson.Encode(v)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return b
}

func TestExplain(t *testing.T) {
	plain, ix := fixtures(t)
	cases := []struct {
		src   Source
		build func(*Builder) *Builder
		want  string
	}{
		{plain, func(b *Builder) *Builder { return b }, `{"store":"Storh\\DocPerFileStore","plan":"full_scan","indexes":[],"groups":1}`},
		{ix, func(b *Builder) *Builder { return b }, `{"store":"Storh\\DocPerFileStore","plan":"full_scan","indexes":[],"groups":1}`},
		{plain, func(b *Builder) *Builder { return b.Where("kind", "eq", "page") }, `{"store":"Storh\\DocPerFileStore","plan":"full_scan","indexes":[],"groups":1}`},
		{ix, func(b *Builder) *Builder {
			return b.Where("kind", "eq", "page").OrWhere(func(q *Builder) *Builder { return q.Where("v", "gt", int64(6)) })
		}, `{"store":"Storh\\DocPerFileStore","plan":"index_scan","indexes":[{"field":"kind","operator":"eq"},{"field":"v","operator":"gt"}],"groups":2}`},
		{ix, func(b *Builder) *Builder { return b.Where("name", "prefix", "a").Where("score", "lte", int64(5)) },
			`{"store":"Storh\\DocPerFileStore","plan":"index_scan","indexes":[{"field":"score","operator":"lte"}],"groups":1}`},
		{ix, func(b *Builder) *Builder {
			return b.Where("nothing", "eq", int64(1)).OrWhere(func(q *Builder) *Builder { return q.Where("tag", "in", val(t, `["x"]`)).Where("kind", "eq", "x") })
		}, `{"store":"Storh\\DocPerFileStore","plan":"index_scan","indexes":[{"field":"tag","operator":"in"}],"groups":2}`},
		{ix, func(b *Builder) *Builder { return b.Where("kind", "neq", "x").Where("v", "exists") }, `{"store":"Storh\\DocPerFileStore","plan":"full_scan","indexes":[],"groups":1}`},
	}
	for i, tc := range cases {
		ex, err := tc.build(New(tc.src)).Explain()
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if got := string(mustEncode(t, ex)); got != tc.want {
			t.Errorf("%d:\n got %s\nwant %s", i, got, tc.want)
		}
	}
}
