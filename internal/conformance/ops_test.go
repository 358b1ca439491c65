package conformance

import (
	"errors"
	"reflect"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// mustOp decodes one op line for a test.
func mustOp(t *testing.T, line string) *phpjson.Array {
	t.Helper()
	v, err := phpjson.DecodeDepth([]byte(line), 0)
	if err != nil {
		t.Fatalf("decode %s: %v", line, err)
	}
	op, ok := v.(*phpjson.Array)
	if !ok {
		t.Fatalf("%s is not an object", line)
	}
	return op
}

// mustEncode is v as PHP's json_encode writes it.
func mustEncode(t *testing.T, v phpjson.Value) string {
	t.Helper()
	b, err := phpjson.Encode(v)
	if err != nil {
		t.Fatalf("encode %#v: %v", v, err)
	}
	return string(b)
}

func TestOpMembers(t *testing.T) {
	op := mustOp(t, `{"s":"x","i":7,"f":7.0,"neg":-3,"n":null,"b":true,"l":[1,"a"],"o":{"k":1},"e":[],"0":"zero"}`)
	cases := []struct {
		key      string
		str      string
		num      int64
		isInt    bool
		intOr    int64
		list     string // encoded OpList ([] for nil)
		hasArray bool
	}{
		{key: "s", str: "x", intOr: 42, list: "[]"},
		{key: "i", num: 7, isInt: true, intOr: 7, list: "[]"},
		{key: "f", intOr: 42, list: "[]"}, // a float is not an int
		{key: "neg", num: -3, isInt: true, intOr: -3, list: "[]"},
		{key: "n", intOr: 42, list: "[]"},
		{key: "b", intOr: 42, list: "[]"},
		{key: "l", intOr: 42, list: `[1,"a"]`, hasArray: true},
		{key: "o", intOr: 42, list: `[1]`, hasArray: true},
		{key: "e", intOr: 42, list: `[]`, hasArray: true},
		{key: "0", str: "zero", intOr: 42, list: "[]"}, // PHP key normalisation
		{key: "absent", intOr: 42, list: "[]"},
		{key: "", intOr: 42, list: "[]"},
	}
	for _, c := range cases {
		if got := OpString(op, c.key); got != c.str {
			t.Errorf("OpString(%q) = %q, want %q", c.key, got, c.str)
		}
		if n, ok := OpInt(op, c.key); n != c.num || ok != c.isInt {
			t.Errorf("OpInt(%q) = %d, %v; want %d, %v", c.key, n, ok, c.num, c.isInt)
		}
		if got := OpIntOr(op, c.key, 42); got != c.intOr {
			t.Errorf("OpIntOr(%q, 42) = %d, want %d", c.key, got, c.intOr)
		}
		if list := mustEncode(t, phpjson.NewList(OpList(op, c.key)...)); list != c.list {
			t.Errorf("OpList(%q) = %s, want %s", c.key, list, c.list)
		}
		if !c.hasArray && OpList(op, c.key) != nil {
			t.Errorf("OpList(%q) of a non-array is not nil", c.key)
		}
		if got := OpArray(op, c.key) != nil; got != c.hasArray {
			t.Errorf("OpArray(%q) != nil is %v, want %v", c.key, got, c.hasArray)
		}
	}
}

func TestOpMembersOfNilOp(t *testing.T) {
	if v := OpValue(nil, "x"); v != nil {
		t.Errorf("OpValue(nil) = %#v", v)
	}
	if OpString(nil, "x") != "" || OpIntOr(nil, "x", 5) != 5 || OpList(nil, "x") != nil || OpArray(nil, "x") != nil {
		t.Error("a nil op must read as empty")
	}
	if _, ok := OpInt(nil, "x"); ok {
		t.Error("OpInt(nil) reports an int")
	}
}

func TestIDSequence(t *testing.T) {
	cases := []struct {
		line string
		want []string // ids handed out before ErrIDSequenceExhausted
		none bool     // no generator at all
	}{
		{line: `{"op":"open"}`, none: true},
		{line: `{"op":"open","id_sequence":null}`, none: true},
		{line: `{"op":"open","id_sequence":"a"}`, none: true},
		{line: `{"op":"open","id_sequence":[]}`, want: nil},
		{line: `{"op":"open","id_sequence":["a","b"]}`, want: []string{"a", "b"}},
		{line: `{"op":"open","id_sequence":[1,"b",null]}`, want: []string{"", "b", ""}},
	}
	for _, c := range cases {
		next := IDSequence(mustOp(t, c.line))
		if c.none {
			if next != nil {
				t.Errorf("%s: got a generator, want none", c.line)
			}
			continue
		}
		if next == nil {
			t.Errorf("%s: no generator", c.line)
			continue
		}
		var got []string
		for range len(c.want) {
			id, err := next()
			if err != nil {
				t.Fatalf("%s: %v after %v", c.line, err, got)
			}
			got = append(got, id)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: ids %q, want %q", c.line, got, c.want)
		}
		for range 2 { // exhausted for good
			if id, err := next(); !errors.Is(err, ErrIDSequenceExhausted) || id != "" {
				t.Errorf("%s: after the sequence got %q, %v", c.line, id, err)
			}
		}
	}
}

func TestRowFeed(t *testing.T) {
	for _, rows := range [][]phpjson.Value{nil, {}, {int64(1)}, {"a", nil, phpjson.NewArray(0)}} {
		next := RowFeed(rows)
		var got []phpjson.Value
		for {
			row, ok, err := next()
			if err != nil {
				t.Fatalf("rows %v: %v", rows, err)
			}
			if !ok {
				if row != nil {
					t.Errorf("rows %v: end carries %#v", rows, row)
				}
				break
			}
			got = append(got, row)
			if len(got) > len(rows) {
				t.Fatalf("rows %v: fed more rows than given", rows)
			}
		}
		if len(got) != len(rows) || (len(rows) > 0 && !reflect.DeepEqual(got, rows)) {
			t.Errorf("fed %#v, want %#v", got, rows)
		}
		if _, ok, _ := next(); ok {
			t.Errorf("rows %v: feed restarted after its end", rows)
		}
	}
}
