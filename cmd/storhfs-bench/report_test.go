package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{ms(5), 5 * time.Millisecond},
		{ms(9, 1, 5), 5 * time.Millisecond},
		{ms(4, 1, 3, 2), 2500 * time.Microsecond},
	}
	for _, tc := range tests {
		in := append([]time.Duration(nil), tc.in...)
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Fatalf("median reordered its input: %v", tc.in)
			}
		}
	}
}

func TestRowCells(t *testing.T) {
	tests := []struct {
		name string
		r    row
		want []string
	}{
		{"within ratio", row{op: "ls", native: 100 * time.Millisecond, mount: 150 * time.Millisecond, goal: maxRatio(2)},
			[]string{"ls", "100 ms", "150 ms", "1.50x", "≤ 2.0x", "yes"}},
		{"over ratio", row{op: "cat", native: time.Second, mount: 2500 * time.Millisecond, goal: maxRatio(1.5)},
			[]string{"cat", "1.00 s", "2.50 s", "2.50x", "≤ 1.5x", "NO"}},
		{"rates", row{op: "create", native: 5 * time.Second, mount: 4 * time.Second, count: 10000, goal: minRate(1600)},
			[]string{"create", "2000 rec/s", "2500 rec/s", "0.80x", "≥ 1600 rec/s", "yes"}},
		{"rate too low", row{op: "create", native: 5 * time.Second, mount: 10 * time.Second, count: 10000, goal: minRate(1600)},
			[]string{"create", "2000 rec/s", "1000 rec/s", "2.00x", "≥ 1600 rec/s", "NO"}},
		{"no goal, note", row{op: "log", native: 20 * time.Second, mount: 30 * time.Second, goal: noGoal, note: "MISMATCH"},
			[]string{"log", "20.0 s", "30.0 s", "1.50x", "-", "- (MISMATCH)"}},
		{"zero native", row{op: "x", mount: time.Second, goal: maxRatio(2)},
			[]string{"x", "0 ms", "1.00 s", "0.00x", "≤ 2.0x", "yes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.r.cells()
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("cells = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	writeTable(&b, []row{{op: "ls", native: time.Second, mount: time.Second, goal: maxRatio(2)}})
	want := "| operation | native | mount | ratio | goal | met? |\n" +
		"| --- | ---: | ---: | ---: | --- | --- |\n" +
		"| ls | 1.00 s | 1.00 s | 1.00x | ≤ 2.0x | yes |\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestRSSLine(t *testing.T) {
	if got := rssLine("x", 300<<20, rssLimit); !strings.HasSuffix(got, "300.0 MiB (goal < 256 MiB: NO)") {
		t.Errorf("over limit: %q", got)
	}
	if got := rssLine("x", 20<<20, rssLimit); !strings.HasSuffix(got, "20.0 MiB (goal < 256 MiB: yes)") {
		t.Errorf("under limit: %q", got)
	}
	if got := rssLine("x", 20<<20, 0); !strings.HasSuffix(got, "20.0 MiB") {
		t.Errorf("no limit: %q", got)
	}
}

func TestParseStatusField(t *testing.T) {
	status := []byte("Name:\tstorhfs\nVmPeak:\t  123 kB\nVmHWM:\t   17612 kB\nVmRSS:\t 1 kB\nThreads: 9\n")
	tests := []struct {
		status  []byte
		field   string
		want    int64
		wantErr bool
	}{
		{status, "VmHWM", 17612 << 10, false},
		{status, "VmRSS", 1 << 10, false},
		{status, "VmSwap", 0, true},  // missing
		{status, "Threads", 0, true}, // no unit
		{[]byte("VmHWM: x kB\n"), "VmHWM", 0, true},
		{[]byte("VmHWM: 12 MB\n"), "VmHWM", 0, true},
		{nil, "VmHWM", 0, true},
		{[]byte("VmHWM:"), "VmHWM", 0, true}, // truncated
	}
	for _, tc := range tests {
		got, err := parseStatusField(tc.status, tc.field)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseStatusField(%q, %s) = %d, %v; want %d, err %v", tc.status, tc.field, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestLineCounter(t *testing.T) {
	tests := []struct {
		name           string
		chunks         []string
		suffix         string
		lines, matches int64
	}{
		{"one write", []string{"a.jsonc\nb.txt\nc.jsonc\n"}, ".jsonc", 3, 2},
		{"split suffix", []string{"abc.js", "onc\nx", "y.jsonc", "\n"}, ".jsonc", 2, 2},
		{"split before newline", []string{"a.jsonc", "\n", "\n"}, ".jsonc", 2, 1},
		{"unterminated last line", []string{"a.jsonc\nb.jsonc"}, ".jsonc", 1, 1},
		{"suffix longer than line", []string{"c\n.jsonc\n"}, ".jsonc", 2, 1},
		{"no suffix", []string{"x\ny\n"}, "", 2, 0},
		{"empty", nil, ".jsonc", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &lineCounter{suffix: []byte(tc.suffix)}
			var n int64
			for _, ch := range tc.chunks {
				w, err := c.Write([]byte(ch))
				if err != nil || w != len(ch) {
					t.Fatalf("Write = %d, %v", w, err)
				}
				n += int64(len(ch))
			}
			if c.lines != tc.lines || c.matching != tc.matches || c.bytes != n {
				t.Errorf("lines %d matching %d bytes %d; want %d %d %d", c.lines, c.matching, c.bytes, tc.lines, tc.matches, n)
			}
		})
	}
}

func TestWriteTableWithFloor(t *testing.T) {
	var b strings.Builder
	writeTable(&b, []row{
		{op: "cat", native: time.Second, mount: 6 * time.Second, floor: 3 * time.Second, goal: maxRatio(1.5)},
		{op: "create", native: 5 * time.Second, mount: 4 * time.Second, count: 10000, goal: minRate(1600)},
	})
	want := "| operation | native | mount | mount/native | floor | floor/native | mount/floor | goal | met? |\n" +
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n" +
		"| cat | 1.00 s | 6.00 s | 6.00x | 3.00 s | 3.00x | 2.00x | ≤ 1.5x | NO |\n" +
		"| create | 2000 rec/s | 2500 rec/s | 0.80x | - | - | - | ≥ 1600 rec/s | yes |\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestRunOrder(t *testing.T) {
	tests := []struct {
		run, sides int
		want       string
	}{
		{0, 2, "[0 1]"}, {1, 2, "[1 0]"}, {2, 2, "[0 1]"},
		{0, 3, "[0 1 2]"}, {1, 3, "[1 2 0]"}, {2, 3, "[2 0 1]"}, {3, 3, "[0 1 2]"},
	}
	for _, tc := range tests {
		if got := fmt.Sprint(runOrder(tc.run, tc.sides)); got != tc.want {
			t.Errorf("runOrder(%d, %d) = %s, want %s", tc.run, tc.sides, got, tc.want)
		}
	}
}

func TestMeasureWithFloor(t *testing.T) {
	fixed := func(d time.Duration, out int64, calls *[]int) side {
		return func(run int) (time.Duration, int64, error) {
			*calls = append(*calls, run)
			return d + time.Duration(run)*time.Millisecond, out, nil
		}
	}
	var nc, mc, fc []int
	r := &runner{runs: 3, warm: true, logf: func(string, ...any) {}}
	o := op{name: "x", goal: maxRatio(2), sameOutput: true,
		native: fixed(10*time.Millisecond, 5, &nc), mount: fixed(30*time.Millisecond, 5, &mc), floor: fixed(20*time.Millisecond, 5, &fc)}
	rw, err := r.measure(o)
	if err != nil {
		t.Fatal(err)
	}
	if rw.native != 11*time.Millisecond || rw.mount != 31*time.Millisecond || rw.floor != 21*time.Millisecond || rw.note != "" {
		t.Errorf("row %+v", rw)
	}
	for _, calls := range [][]int{nc, mc, fc} {
		if fmt.Sprint(calls) != "[-1 0 1 2]" { // warm-up, then the runs
			t.Errorf("calls %v", calls)
		}
	}
	o.floor = fixed(20*time.Millisecond, 6, &fc)
	if rw, err = r.measure(o); err != nil || rw.note != "MISMATCH: native 5, floor 6" {
		t.Errorf("mismatch note %q, %v", rw.note, err)
	}
	o.floor = nil
	if rw, err = r.measure(o); err != nil || rw.floor != 0 || rw.note != "" {
		t.Errorf("without floor: %+v, %v", rw, err)
	}
}

func TestWriteTableWithVariant(t *testing.T) {
	var b strings.Builder
	writeTable(&b, []row{
		{op: "cat", native: time.Second, mount: 6 * time.Second, floor: 3 * time.Second, variant: 2 * time.Second, goal: maxRatio(1.5)},
		{op: "ls", native: time.Second, mount: 2 * time.Second, floor: time.Second, goal: maxRatio(2)},
	})
	want := "| operation | native | mount | mount/native | floor | floor/native | mount/floor | variant | variant/native | goal | met? |\n" +
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n" +
		"| cat | 1.00 s | 6.00 s | 6.00x | 3.00 s | 3.00x | 2.00x | 2.00 s | 2.00x | ≤ 1.5x | NO |\n" +
		"| ls | 1.00 s | 2.00 s | 2.00x | 1.00 s | 1.00x | 2.00x | - | - | ≤ 2.0x | yes |\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestMeasureWithVariant(t *testing.T) {
	fixed := func(d time.Duration, out int64) side {
		return func(run int) (time.Duration, int64, error) { return d + time.Duration(run)*time.Millisecond, out, nil }
	}
	r := &runner{runs: 3, warm: true, logf: func(string, ...any) {}}
	o := op{name: "x", goal: maxRatio(2), sameOutput: true,
		native: fixed(10*time.Millisecond, 5), mount: fixed(30*time.Millisecond, 5),
		floor: fixed(20*time.Millisecond, 5), variant: fixed(40*time.Millisecond, 7)}
	rw, err := r.measure(o)
	if err != nil {
		t.Fatal(err)
	}
	if rw.floor != 21*time.Millisecond || rw.variant != 41*time.Millisecond || rw.note != "MISMATCH: native 5, variant 7" {
		t.Errorf("row %+v", rw)
	}
	o.floor = nil // a variant is measured only beside a floor
	if rw, err = r.measure(o); err != nil || rw.variant != 0 {
		t.Errorf("without floor: %+v, %v", rw, err)
	}
}

func TestParseCacheDrops(t *testing.T) {
	n, err := parseCacheDrops([]byte("nr_free_pages 5\ndrop_pagecache 652\ndrop_slab 661\nnr_foo 1\n"))
	if err != nil || n != 1313 {
		t.Errorf("parseCacheDrops = %d, %v; want 1313", n, err)
	}
	for _, bad := range []string{"", "drop_pagecache 1\n", "drop_pagecache x\ndrop_slab 1\n"} {
		if _, err := parseCacheDrops([]byte(bad)); err == nil {
			t.Errorf("parseCacheDrops(%q) accepted", bad)
		}
	}
}
