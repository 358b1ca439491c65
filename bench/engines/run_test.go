package main

import "testing"

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
