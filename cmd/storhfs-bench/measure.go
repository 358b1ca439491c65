package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// side runs one measured side of an operation (run counts from 0) and
// returns how long it took and what it produced (a count compared between
// the sides: lines, matching names, bytes or records).
type side func(run int) (time.Duration, int64, error)

// op is one operation measured natively and through the mount, and on
// the FUSE floor (floorfs.go) when floor is set.
type op struct {
	name       string
	native     side
	mount      side
	floor      side // nil: not measured on the floor
	variant    side // nil: not measured on the variant floor
	goal       goal
	rateCount  int  // > 0: show records/s for this many records
	dropCaches bool // cold caches make sense for this operation
	noWarmup   bool // every run must start from scratch (creates)
	sameOutput bool // every side must produce the same count
}

// runner measures ops the same way: runs alternating native and mount.
type runner struct {
	runs       int
	dropCaches bool // flag: drop the page cache before each run of read ops
	warm       bool // one untimed run per side first (when not dropping caches)
	logf       func(string, ...any)
}

// Where a side's results go, in op order.
const (
	onNative = iota
	onMount
	onFloor
	onVariant
)

var sideNames = [...]string{onNative: "native", onMount: "mount", onFloor: "floor", onVariant: "variant"}

// sides are the op's sides to measure, indexed by onNative, onMount,
// onFloor, onVariant (a variant is measured only with a floor).
func (o op) sides() []side {
	switch {
	case o.floor != nil && o.variant != nil:
		return []side{o.native, o.mount, o.floor, o.variant}
	case o.floor != nil:
		return []side{o.native, o.mount, o.floor}
	}
	return []side{o.native, o.mount}
}

// runOrder is the order of the sides in run number run: rotated by one
// each run, so that every side goes first equally often (two sides:
// native first in even runs, mount first in odd ones).
func runOrder(run, sides int) []int {
	order := make([]int, sides)
	for i := range order {
		order[i] = (run + i) % sides
	}
	return order
}

func (r *runner) measure(o op) (row, error) {
	sides := o.sides()
	if !o.noWarmup && (r.warm || !r.dropCaches || !o.dropCaches) {
		for i, s := range sides {
			if _, _, err := s(-1); err != nil {
				return row{}, fmt.Errorf("%s (%s, warm-up): %w", o.name, sideNames[i], err)
			}
		}
	}
	times := make([][]time.Duration, len(sides))
	var note string
	for run := range r.runs {
		outs := make([]int64, len(sides))
		for _, i := range runOrder(run, len(sides)) {
			if r.dropCaches && o.dropCaches {
				if err := dropCaches(); err != nil {
					return row{}, err
				}
			}
			d, out, err := sides[i](run)
			if err != nil {
				return row{}, fmt.Errorf("%s (%s): %w", o.name, sideNames[i], err)
			}
			times[i], outs[i] = append(times[i], d), out
		}
		var msg strings.Builder
		for i := range sides {
			fmt.Fprintf(&msg, ", %s %v (%d)", sideNames[i], times[i][run], outs[i])
		}
		r.logf("%-28s run %d%s", o.name, run+1, msg.String())
		if o.sameOutput {
			if m := mismatch(outs); m != "" {
				note = m
			}
		}
	}
	rw := row{op: o.name, native: median(times[onNative]), mount: median(times[onMount]),
		count: o.rateCount, goal: o.goal, note: note}
	if o.floor != nil {
		rw.floor = median(times[onFloor])
	}
	if o.floor != nil && o.variant != nil {
		rw.variant = median(times[onVariant])
	}
	return rw, nil
}

// mismatch describes outputs that differ from the native one ("" if none).
func mismatch(outs []int64) string {
	var diffs []string
	for i := 1; i < len(outs); i++ {
		if outs[i] != outs[onNative] {
			diffs = append(diffs, fmt.Sprintf("%s %d", sideNames[i], outs[i]))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return fmt.Sprintf("MISMATCH: native %d, %s", outs[onNative], strings.Join(diffs, ", "))
}

// dropCaches writes back dirty pages and drops the page, dentry and inode
// caches (root only).
func dropCaches() error {
	unix.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		return fmt.Errorf("drop caches (run as root or pass --drop-caches=false): %w", err)
	}
	return nil
}

// counting says what a tool side returns as its output count.
type counting int

const (
	countLines  counting = iota // newline-terminated lines
	countSuffix                 // lines ending in the op's suffix
	countBytes                  // bytes
)

// tool is a side that runs argv as a subprocess with LC_ALL=C, stdin from
// stdinFile when set, and counts its stdout.
func tool(argv []string, stdinFile string, c counting, suffix string) side {
	return func(int) (time.Duration, int64, error) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if stdinFile != "" {
			f, err := os.Open(stdinFile)
			if err != nil {
				return 0, 0, err
			}
			defer f.Close()
			cmd.Stdin = f
		}
		out := &lineCounter{suffix: []byte(suffix)}
		cmd.Stdout = out
		start := time.Now()
		err := cmd.Run()
		elapsed := time.Since(start)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w: %s", strings.Join(shortArgv(argv), " "), err, firstLine(stderr.String()))
		}
		switch c {
		case countBytes:
			return elapsed, out.bytes, nil
		case countSuffix:
			return elapsed, out.matching, nil
		}
		return elapsed, out.lines, nil
	}
}

// shortArgv abbreviates long argument lists (256 bucket directories) for messages.
func shortArgv(argv []string) []string {
	if len(argv) <= 6 {
		return argv
	}
	return append(append([]string{}, argv[:5]...), fmt.Sprintf("... (%d more)", len(argv)-5))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// lineCounter counts bytes, lines, and lines ending in suffix.
type lineCounter struct {
	suffix   []byte
	bytes    int64
	lines    int64
	matching int64
	tail     []byte // end of the current unterminated line, at most len(suffix) bytes
}

var _ io.Writer = (*lineCounter)(nil)

func (c *lineCounter) Write(p []byte) (int, error) {
	c.bytes += int64(len(p))
	rest := p
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			c.keepTail(rest)
			return len(p), nil
		}
		c.lines++
		if len(c.suffix) > 0 {
			c.keepTail(rest[:i])
			if bytes.HasSuffix(c.tail, c.suffix) {
				c.matching++
			}
			c.tail = c.tail[:0]
		}
		rest = rest[i+1:]
	}
}

func (c *lineCounter) keepTail(b []byte) {
	n := len(c.suffix)
	if n == 0 {
		return
	}
	c.tail = append(c.tail, b...)
	if len(c.tail) > n {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-n:]...)
	}
}
