package query

import (
	"errors"
	"math"
	"sort"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// The cross-type order of docs/format/docstore.md §8.5: PHP usort with compare.
func TestCompareSortsLikePHP(t *testing.T) {
	in := val(t, `["zzz", -1, 0, 5.5, [], [1], {"a":1}, false, null, true, "", -0.5]`).(*phpjson.Array).Values()
	vals := append([]phpjson.Value(nil), in...)
	sort.SliceStable(vals, func(i, j int) bool {
		r, err := Compare(vals[i], vals[j])
		if err != nil {
			t.Fatal(err)
		}
		return r < 0
	})
	got := string(mustEncode(t, phpjson.NewList(vals...)))
	want := `["","zzz",-1,-0.5,0,5.5,[1],[],false,null,true,{"a":1}]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCompare(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{`1`, `1.0`, 0},
		{`1`, `1.5`, -1},
		{`-0.0`, `0`, 0},
		{`2`, `10`, -1},
		{`"b"`, `"a"`, 1},
		{`"B"`, `"a"`, -1}, // bytewise
		{`"é"`, `"z"`, 1},
		{`false`, `true`, -1},
		{`null`, `null`, 0},
		{`null`, `5`, 1},
		{`true`, `5`, 1},
		{`false`, `5`, 1},
		{`"abc"`, `5`, -1},
		{`"abc"`, `-5`, -1},
		{`-5`, `0`, -1},
		{`-0.0`, `"a"`, 1},
		{`[1]`, `[2]`, -1},
		{`[1]`, `[1,2]`, -1}, // "[\n        1\n" vs "[\n        1,": '\n' < ','
		{`[]`, `[1]`, 1},
		{`[]`, `false`, -1},
		{`{"a":1}`, `{"b":0}`, -1},
		{`{"a":1}`, `true`, 1},
		{`[[1]]`, `[{"a":1}]`, -1},
		{`null`, `true`, -1},
		{`false`, `null`, -1},
	}
	for _, tc := range cases {
		got, err := Compare(val(t, tc.a), val(t, tc.b))
		if err != nil || got != tc.want {
			t.Errorf("Compare(%s, %s) = %d, %v; want %d", tc.a, tc.b, got, err, tc.want)
		}
		back, _ := Compare(val(t, tc.b), val(t, tc.a))
		if back != -tc.want {
			t.Errorf("Compare(%s, %s) = %d; want %d", tc.b, tc.a, back, -tc.want)
		}
	}
	// An INF inside an array cannot be encoded: PHP throws, so do we.
	_, err := Compare(phpjson.NewList(math.Inf(1)), phpjson.NewList(int64(1)))
	if !errors.Is(err, phpjson.ErrInfNaN) {
		t.Errorf("INF in array: err = %v", err)
	}
	// Numbers compare numerically even when infinite.
	if r, err := Compare(math.Inf(1), int64(5)); err != nil || r != 1 {
		t.Errorf("INF vs 5 = %d, %v", r, err)
	}
}

func TestCompareErrorSurfaces(t *testing.T) {
	src := newMemSource()
	src.put(tid(1), phpjson.NewArray(0))
	d := phpjson.NewArray(1)
	d.SetString("v", phpjson.NewList(math.Inf(1)))
	src.put(tid(2), d)
	if _, err := New(src).Where("v", "gt", val(t, `[1]`)).Get(); !errors.Is(err, phpjson.ErrInfNaN) {
		t.Errorf("get: err = %v", err)
	}
	src.put(tid(3), phpjson.NewArray(0))
	d3 := phpjson.NewArray(1)
	d3.SetString("v", phpjson.NewList(int64(1)))
	src.put(tid(3), d3)
	if _, err := New(src).OrderBy("v", "asc").Get(); !errors.Is(err, phpjson.ErrInfNaN) {
		t.Errorf("orderBy: err = %v", err)
	}
}
