package main

import (
	"strings"
	"testing"
)

func TestParseBench(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkPut-2           	     300	    228000 ns/op	       105.0 cpu-us/op	       228.0 us/record
BenchmarkCountIndexed-2  	    2000	      5000 ns/op	         5.900 cpu-us/op
BenchmarkEnqueueMany20k  	       3	 7000000 ns/op	         0.3660 us/job	         0.41 cpu-us/job
PASS
`)
	got := parseBench(out)
	want := figures{"Put": 228, "CountIndexed": 5, "EnqueueMany20k": 0.366}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %v, want %v", k, got[k], v)
		}
	}
}

func TestParsePHP(t *testing.T) {
	got, err := parsePHP([]byte(`{"engine":"queue","row":"claim","us":81.5,"unit":"us\/op"}` + "\n"))
	if err != nil || got["claim"] != 81.5 {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := parsePHP([]byte("Warning: something\n")); err == nil {
		t.Fatal("a non-JSON line was accepted")
	}
}

func TestMedianAndSlower(t *testing.T) {
	if m := median([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Fatalf("median %v", m)
	}
	e := engine{name: "x", rows: []row{{label: "fast", php: "a", bench: "A"}, {label: "slow", php: "b", bench: "B"}}}
	res := newResult(e)
	for _, round := range [][4]float64{{10, 5, 10, 11}, {10, 6, 10, 12}, {10, 20, 10, 9}} {
		if err := res.add(figures{"a": round[0], "b": round[2]}, figures{"A": round[1], "B": round[3]}); err != nil {
			t.Fatal(err)
		}
	}
	rep := report{results: []*result{res}}
	if s := rep.slower(); len(s) != 1 {
		t.Fatalf("slower rows: %q", s)
	}
	if err := res.add(figures{"a": 1}, figures{"A": 1, "B": 1}); err == nil {
		t.Fatal("a missing PHP row was accepted")
	}
}

func TestParseElapsed(t *testing.T) {
	if ns, err := parseElapsed("123456\n"); err != nil || ns != 123456 {
		t.Fatalf("got %v, %v", ns, err)
	}
	for _, bad := range []string{"", "0\n", "-5\n", "12.5\n", "PHP Warning: x\n"} {
		if _, err := parseElapsed(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestQuartiles(t *testing.T) {
	for _, c := range []struct {
		xs          []float64
		lo, mid, hi float64
	}{
		{[]float64{5}, 5, 5, 5},
		{[]float64{4, 1, 3, 2}, 1.5, 2.5, 3.5},
		{[]float64{7, 1, 5, 3, 9}, 3, 5, 7},
	} {
		lo, mid, hi := quartiles(c.xs)
		if lo != c.lo || mid != c.mid || hi != c.hi {
			t.Errorf("quartiles(%v) = %v %v %v, want %v %v %v", c.xs, lo, mid, hi, c.lo, c.mid, c.hi)
		}
	}
}

// The interleaved rows' verdict is the median of the per-pair ratios, not
// the ratio of the medians: a burst pair compares neighbours in time.
func TestInterleavedRatiosAndSlower(t *testing.T) {
	p := &pairs{php: []float64{100, 400, 200}, ours: []float64{90, 380, 250}}
	want := []float64{0.9, 0.95, 1.25}
	for k, r := range p.ratios() {
		if r != want[k] {
			t.Fatalf("ratios %v, want %v", p.ratios(), want)
		}
	}
	e := engine{name: "x", fsyncRows: []fsyncRow{{label: "put", php: "put", unit: "us/op"}}}
	rep := report{results: []*result{{engine: e, interleaved: []*pairs{p}}}}
	if s := rep.slower(); len(s) != 0 {
		t.Fatalf("median ratio 0.95 reported slower: %q", s)
	}
	p.ours[0] = 150 // ratios 1.5, 0.95, 1.25: median 1.25
	if s := rep.slower(); len(s) != 1 {
		t.Fatalf("median ratio 1.25 not reported slower: %q", s)
	}
	var out strings.Builder
	rep.print(&out)
	if !strings.Contains(out.String(), "| x | put (interleaved) | us/op | 0.200 (0.150-0.300) | 0.250 (0.200-0.315) | 1.25 (1.10-1.38) **slower** |") {
		t.Fatalf("table:\n%s", out.String())
	}
}
