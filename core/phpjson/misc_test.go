package phpjson

import (
	"math"
	"testing"
)

func TestSerialize(t *testing.T) {
	obj := NewArray(0)
	obj.SetString("k", 1.5)
	obj.SetString("7", "x")
	tests := []struct {
		v    Value
		want string
	}{
		{nil, `N;`},
		{true, `b:1;`},
		{false, `b:0;`},
		{int64(42), `i:42;`},
		{int64(-7), `i:-7;`},
		{1.5, `d:1.5;`},
		{0.1, `d:0.1;`},
		{1.0, `d:1;`},
		{100.0, `d:100;`},
		{1e25, `d:1.0E+25;`},
		{1.5e-7, `d:1.5E-7;`},
		{0.0001, `d:0.0001;`},
		{1e15, `d:1000000000000000;`}, // php_gcvt precision 17: fixed up to decpt 17
		{1e17, `d:1.0E+17;`},
		{math.Copysign(0, -1), `d:-0;`},
		{0.0, `d:0;`},
		{math.Inf(1), `d:INF;`},
		{math.Inf(-1), `d:-INF;`},
		{math.NaN(), `d:NAN;`},
		{"", `s:0:"";`},
		{"é", `s:2:"é";`},
		{`a"b`, `s:3:"a"b";`},
		{NewArray(0), `a:0:{}`},
		{NewList("a", int64(1)), `a:2:{i:0;s:1:"a";i:1;i:1;}`},
		{obj, `a:2:{s:1:"k";d:1.5;i:7;s:1:"x";}`},
		{NewList(NewList()), `a:1:{i:0;a:0:{}}`},
	}
	for _, tt := range tests {
		if got := Serialize(tt.v); got != tt.want {
			t.Errorf("Serialize(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestIdentical(t *testing.T) {
	mk := func(in string) Value {
		v, err := Decode([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		a, b string
		want bool
	}{
		{`1`, `1`, true},
		{`1`, `1.0`, false},
		{`0.0`, `-0.0`, true},
		{`"a"`, `"a"`, true},
		{`"1"`, `1`, false},
		{`null`, `null`, true},
		{`null`, `false`, false},
		{`true`, `true`, true},
		{`{}`, `[]`, true},
		{`{"a":1,"b":2}`, `{"a":1,"b":2}`, true},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, false},
		{`{"0":"x"}`, `["x"]`, true},
		{`[1,[2,{"a":null}]]`, `[1,[2,{"a":null}]]`, true},
		{`[1,[2,{"a":null}]]`, `[1,[2,{"a":false}]]`, false},
		{`[1]`, `[1,2]`, false},
	}
	for _, tt := range tests {
		if got := Identical(mk(tt.a), mk(tt.b)); got != tt.want {
			t.Errorf("%s === %s: got %v", tt.a, tt.b, got)
		}
	}
	if Identical(math.NaN(), math.NaN()) {
		t.Error("NAN === NAN")
	}
	if !Identical((*Array)(nil), NewArray(0)) || !Identical(NewArray(0), (*Array)(nil)) {
		t.Error("nil array should equal empty array")
	}
	if Identical(int(1), int(1)) {
		t.Error("non-Value types are never identical")
	}
}

func TestDepth(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`1`, 0}, {`[]`, 1}, {`{}`, 1}, {`[1,[2]]`, 2}, {`{"a":[[]],"b":[[[1]]]}`, 4},
		{nested(100000, ""), 100000},
	}
	for _, tt := range tests {
		v, err := DecodeDepth([]byte(tt.in), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := Depth(v); got != tt.want {
			t.Errorf("Depth(%.20s) = %d, want %d", tt.in, got, tt.want)
		}
	}
	if Depth((*Array)(nil)) != 1 {
		t.Error("nil array")
	}
}

// Depth returns how many arrays are nested in v: 0 for a scalar, 1 for an
// array of scalars (or an empty array). PHP's decoder reads a document only
// if Depth < its depth limit (511 levels at the default 512); its encoder
// writes Depth <= 512. Iterative, so any nesting is safe.
func Depth(v Value) int {
	type pos struct {
		a     *Array
		i     int
		depth int
	}
	root, ok := v.(*Array)
	if !ok {
		return 0
	}
	deepest := 1
	stack := []pos{{a: root, depth: 1}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i >= top.a.Len() {
			stack = stack[:len(stack)-1]
			continue
		}
		child, ok := top.a.vals[top.i].(*Array)
		top.i++
		if ok {
			d := top.depth + 1
			deepest = max(deepest, d)
			stack = append(stack, pos{a: child, depth: d})
		}
	}
	return deepest
}
