package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// goal is the target a row is judged against.
type goal struct {
	text string
	// met reports whether a row reaches the goal; nil means "no goal".
	met func(r row) bool
}

// maxRatio is "mount time within x times native time".
func maxRatio(x float64) goal {
	return goal{text: fmt.Sprintf("≤ %.1fx", x), met: func(r row) bool { return r.ratio() <= x }}
}

// minRate is "the mount performs at least perSec operations a second".
func minRate(perSec float64) goal {
	return goal{text: fmt.Sprintf("≥ %.0f rec/s", perSec), met: func(r row) bool { return r.mountRate() >= perSec }}
}

var noGoal = goal{text: "-"}

// row is one operation measured on both sides: medians over the runs.
type row struct {
	op     string
	native time.Duration
	mount  time.Duration
	floor  time.Duration // 0: not measured on the FUSE floor
	// variant is the median on the variant floor (0: not measured).
	variant time.Duration
	// count > 0 shows the columns as rates (count / duration) instead of times.
	count int
	goal  goal
	note  string // e.g. a mismatch between the sides
}

// ratio is mount time / native time (0 when native took no time).
func (r row) ratio() float64 { return ratioOf(r.mount, r.native) }

// ratioOf is a / b (0 when b took no time).
func ratioOf(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// floorCells are the floor's median and the floor/native and mount/floor
// ratios, or dashes when the row was not measured on the floor.
func (r row) floorCells() []string {
	if r.floor <= 0 {
		return []string{"-", "-", "-"}
	}
	return []string{fmtDuration(r.floor),
		fmt.Sprintf("%.2fx", ratioOf(r.floor, r.native)),
		fmt.Sprintf("%.2fx", ratioOf(r.mount, r.floor))}
}

// variantCells are the variant floor's median and its ratio to native, or
// dashes when the row was not measured on it.
func (r row) variantCells() []string {
	if r.variant <= 0 {
		return []string{"-", "-"}
	}
	return []string{fmtDuration(r.variant), fmt.Sprintf("%.2fx", ratioOf(r.variant, r.native))}
}

func (r row) mountRate() float64  { return rate(r.count, r.mount) }
func (r row) nativeRate() float64 { return rate(r.count, r.native) }

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

func (r row) cells() []string {
	native, mount := fmtDuration(r.native), fmtDuration(r.mount)
	if r.count > 0 {
		native = fmt.Sprintf("%.0f rec/s", r.nativeRate())
		mount = fmt.Sprintf("%.0f rec/s", r.mountRate())
	}
	met := "-"
	if r.goal.met != nil {
		met = yesNo(r.goal.met(r))
	}
	if r.note != "" {
		met += " (" + r.note + ")"
	}
	return []string{r.op, native, mount, fmt.Sprintf("%.2fx", r.ratio()), r.goal.text, met}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

// fmtDuration shows a duration with three significant digits.
func fmtDuration(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
}

// median of ds (0 for none); ds is not modified.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// writeTable prints rows as a Markdown table; when a row was measured on
// the FUSE floor, with the floor's columns between mount and goal, and
// the variant floor's after them.
func writeTable(w io.Writer, rows []row) {
	withFloor := slices.ContainsFunc(rows, func(r row) bool { return r.floor > 0 })
	withVariant := slices.ContainsFunc(rows, func(r row) bool { return r.variant > 0 })
	switch {
	case withVariant:
		fmt.Fprintln(w, "| operation | native | mount | mount/native | floor | floor/native | mount/floor | variant | variant/native | goal | met? |")
		fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
	case withFloor:
		fmt.Fprintln(w, "| operation | native | mount | mount/native | floor | floor/native | mount/floor | goal | met? |")
		fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
	default:
		fmt.Fprintln(w, "| operation | native | mount | ratio | goal | met? |")
		fmt.Fprintln(w, "| --- | ---: | ---: | ---: | --- | --- |")
	}
	for _, r := range rows {
		c := r.cells()
		switch {
		case withVariant:
			c = slices.Concat(c[:4], r.floorCells(), r.variantCells(), c[4:])
		case withFloor:
			c = slices.Concat(c[:4], r.floorCells(), c[4:])
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
	}
}

// rssLimit is the goal for the mount's peak RSS.
const rssLimit = 256 << 20

// rssLine reports the mount's peak resident set size against the goal.
func rssLine(what string, bytes int64, limit int64) string {
	met := "-"
	goalText := ""
	if limit > 0 {
		met = yesNo(bytes < limit)
		goalText = fmt.Sprintf(" (goal < %d MiB: %s)", limit>>20, met)
	}
	return fmt.Sprintf("Peak RSS of the mount (VmHWM) %s: %.1f MiB%s", what, float64(bytes)/(1<<20), goalText)
}
