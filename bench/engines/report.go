package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"
)

// result holds one engine's samples: for every row, one PHP and one Go
// figure per round, in round order, so ratios pair figures of one round;
// for every fsync row, its interleaved bursts.
type result struct {
	engine      engine
	php         [][]float64 // by row, then round
	ours        [][]float64
	interleaved []*pairs // by fsync row
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
	interleaving       interleaving
	start              time.Time
	loadStart, loadEnd string
	results            []*result
}

func (rep *report) print(w io.Writer) {
	fmt.Fprintf(w, "%s UTC, %d rounds (PHP then Go per round), load average %s at the start, %s at the end, %s, GOMAXPROCS %d\n\n",
		rep.start.UTC().Format("2006-01-02 15:04"), rep.rounds, rep.loadStart, rep.loadEnd, runtime.Version(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "Rows marked (interleaved): %d burst pairs of %d operations per side, PHP and Go alternating (interleave.go); "+
		"PHP and ours are the median time per operation over the bursts, ours/PHP the median of the per-pair ratios, "+
		"the range in brackets the middle half (quartiles) of the bursts. Other rows: median of the rounds (min-max).\n\n",
		rep.interleaving.bursts, rep.interleaving.burst)
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
		for i, row := range res.engine.fsyncRows {
			p := res.interleaved[i]
			mark := ""
			if _, mid, _ := quartiles(p.ratios()); mid > 1 {
				mark = " **slower**"
			}
			fmt.Fprintf(w, "| %s | %s (interleaved) | %s | %s | %s | %s%s |\n", res.engine.name, row.label, row.unit,
				middleHalf(nsToUS(p.php), num), middleHalf(nsToUS(p.ours), num), middleHalf(p.ratios(), ratioText), mark)
		}
	}
}

// middleHalf is "median (lower quartile-upper quartile)".
func middleHalf(xs []float64, format func(float64) string) string {
	lo, mid, hi := quartiles(xs)
	return fmt.Sprintf("%s (%s-%s)", format(mid), format(lo), format(hi))
}

func nsToUS(ns []float64) []float64 {
	us := make([]float64, len(ns))
	for i, v := range ns {
		us[i] = v / 1000
	}
	return us
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
		for i, row := range res.engine.fsyncRows {
			p := res.interleaved[i]
			if _, m, _ := quartiles(p.ratios()); m > 1 {
				out = append(out, fmt.Sprintf("%s %s (interleaved): ours %s vs PHP %s %s (%s)", res.engine.name, row.label,
					num(median(p.ours)/1000), num(median(p.php)/1000), row.unit, ratioText(m)))
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
