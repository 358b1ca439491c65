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

// op is one operation measured natively and through the mount.
type op struct {
	name       string
	native     side
	mount      side
	goal       goal
	rateCount  int  // > 0: show records/s for this many records
	dropCaches bool // cold caches make sense for this operation
	noWarmup   bool // every run must start from scratch (creates)
	sameOutput bool // both sides must produce the same count
}

// runner measures ops the same way: runs alternating native and mount.
type runner struct {
	runs       int
	dropCaches bool // flag: drop the page cache before each run of read ops
	warm       bool // one untimed run per side first (when not dropping caches)
	logf       func(string, ...any)
}

func (r *runner) measure(o op) (row, error) {
	var natives, mounts []time.Duration
	if !o.noWarmup && (r.warm || !r.dropCaches || !o.dropCaches) {
		for _, s := range []side{o.native, o.mount} {
			if _, _, err := s(-1); err != nil {
				return row{}, fmt.Errorf("%s (warm-up): %w", o.name, err)
			}
		}
	}
	var note string
	for run := range r.runs {
		order := []bool{false, true} // mount?
		if run%2 == 1 {
			order = []bool{true, false}
		}
		var outs [2]int64
		for _, onMount := range order {
			s := o.native
			if onMount {
				s = o.mount
			}
			if r.dropCaches && o.dropCaches {
				if err := dropCaches(); err != nil {
					return row{}, err
				}
			}
			d, out, err := s(run)
			if err != nil {
				return row{}, fmt.Errorf("%s (%s): %w", o.name, sideName(onMount), err)
			}
			if onMount {
				mounts, outs[1] = append(mounts, d), out
			} else {
				natives, outs[0] = append(natives, d), out
			}
		}
		r.logf("%-28s run %d: native %v (%d), mount %v (%d)", o.name, run+1,
			natives[len(natives)-1], outs[0], mounts[len(mounts)-1], outs[1])
		if o.sameOutput && outs[0] != outs[1] {
			note = fmt.Sprintf("MISMATCH: native %d, mount %d", outs[0], outs[1])
		}
	}
	return row{op: o.name, native: median(natives), mount: median(mounts),
		count: o.rateCount, goal: o.goal, note: note}, nil
}

func sideName(onMount bool) string {
	if onMount {
		return "mount"
	}
	return "native"
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
