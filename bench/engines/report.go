package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"
)

// result holds one engine's samples: for every row, one PHP and one Go
// figure per round, in round order, so ratios pair figures of one round.
type result struct {
	engine engine
	php    [][]float64 // by row, then round
	ours   [][]float64
}

func newResult(e engine) *result {
	return &result{engine: e, php: make([][]float64, len(e.rows)), ours: make([][]float64, len(e.rows))}
}

// add records one round; a row missing from either side is an error (a
// renamed benchmark or script row must not drop out of the table).
func (r *result) add(php, ours figures) error {
	for i, row := range r.engine.rows {
		p, ok := php[row.php]
		if !ok || p <= 0 {
			return fmt.Errorf("%s: PHP row %q missing in %s's output", r.engine.name, row.php, r.engine.script)
		}
		o, ok := ours[row.bench]
		if !ok || o <= 0 {
			return fmt.Errorf("%s: Benchmark%s missing in %s's output", r.engine.name, row.bench, r.engine.pkg)
		}
		r.php[i] = append(r.php[i], p)
		r.ours[i] = append(r.ours[i], o)
	}
	return nil
}

// ratios is ours/PHP per round for row i.
func (r *result) ratios(i int) []float64 {
	out := make([]float64, len(r.php[i]))
	for k := range out {
		out[k] = r.ours[i][k] / r.php[i][k]
	}
	return out
}

type report struct {
	rounds             int
	start              time.Time
	loadStart, loadEnd string
	results            []*result
}

func (rep *report) print(w io.Writer) {
	fmt.Fprintf(w, "%s UTC, %d rounds (PHP then Go per round), load average %s at the start, %s at the end, %s, GOMAXPROCS %d\n\n",
		rep.start.UTC().Format("2006-01-02 15:04"), rep.rounds, rep.loadStart, rep.loadEnd, runtime.Version(), runtime.GOMAXPROCS(0))
	fmt.Fprintln(w, "| engine | row | unit | PHP | ours | ours/PHP |")
	fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: | ---: |")
	for _, res := range rep.results {
		for i, row := range res.engine.rows {
			ratio := res.ratios(i)
			mark := ""
			if median(ratio) > 1 {
				mark = " **slower**"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s%s |\n", res.engine.name, row.label, row.unit,
				spread(res.php[i], num), spread(res.ours[i], num), spread(ratio, ratioText), mark)
		}
	}
}

// slower lists the rows whose median ratio is above 1, with both figures.
func (rep *report) slower() []string {
	var out []string
	for _, res := range rep.results {
		for i, row := range res.engine.rows {
			if m := median(res.ratios(i)); m > 1 {
				out = append(out, fmt.Sprintf("%s %s: ours %s vs PHP %s %s (%s)", res.engine.name, row.label,
					num(median(res.ours[i])), num(median(res.php[i])), row.unit, ratioText(m)))
			}
		}
	}
	return out
}

// spread is "median (min-max)", or the one value of a single round.
func spread(xs []float64, format func(float64) string) string {
	if len(xs) == 1 {
		return format(xs[0])
	}
	return fmt.Sprintf("%s (%s-%s)", format(median(xs)), format(slices.Min(xs)), format(slices.Max(xs)))
}

// median is the middle value; of an even count, the mean of the two middle ones.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// num prints about three significant digits, without exponents.
func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func ratioText(v float64) string { return fmt.Sprintf("%.2f", v) }
