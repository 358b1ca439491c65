package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/core/seglog"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// The fsync-bound single-operation rows are measured interleaved: one
// long-lived PHP process (bench/php/interleave.php) and this process each
// build the row's data set in their own directory on the same disk, then take
// turns doing bursts of the same number of operations, so both sides see the
// same disk weather. Per-pass figures a minute apart put a row whose true
// ratio is near 1 above 1 about half the time.
const phpInterleave = "bench/php/interleave.php"

// A fsyncRow is a table row measured by interleave. Its open builds the Go
// side's data set under dir and returns op, which does operation i (0, 1, 2,
// ... across bursts) as the matching Go benchmark and PHP row do.
type fsyncRow struct {
	label string // the table's row
	php   string // the row's name for interleave.php
	unit  string
	open  func(dir string) (op func(i int) error, closer io.Closer, err error)
}

// pairs holds one interleaved row's bursts: per-op nanoseconds of each side,
// burst k of PHP paired with burst k of ours (neighbours in time).
type pairs struct {
	php, ours []float64
}

// ratios is ours/PHP per burst pair.
func (p *pairs) ratios() []float64 {
	out := make([]float64, len(p.php))
	for k := range out {
		out[k] = p.ours[k] / p.php[k]
	}
	return out
}

// interleave measures row r: bursts pairs of burst operations each, the side
// going first alternating from pair to pair.
func interleave(engineName string, r fsyncRow, scratch string, bursts, burst int) (*pairs, error) {
	base, err := os.MkdirTemp(scratch, "interleave-"+engineName+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(base)
	phpDir, goDir := filepath.Join(base, "php"), filepath.Join(base, "go")
	for _, d := range []string{phpDir, goDir} {
		if err := os.Mkdir(d, 0o777); err != nil {
			return nil, err
		}
	}
	php, err := startPHP(engineName, r.php, phpDir)
	if err != nil {
		return nil, err
	}
	defer php.close()
	op, closer, err := r.open(goDir)
	if err != nil {
		return nil, fmt.Errorf("%s %s: Go data set in %s: %w", engineName, r.php, goDir, err)
	}
	defer closer.Close()
	unix.Sync() // finish the data sets' writeback before the first burst

	p := &pairs{}
	next := 0 // the Go side's next operation
	goBurst := func() (float64, error) {
		start := time.Now()
		for end := next + burst; next < end; next++ {
			if err := op(next); err != nil {
				return 0, fmt.Errorf("%s %s: Go operation %d: %w", engineName, r.php, next, err)
			}
		}
		return float64(time.Since(start).Nanoseconds()) / float64(burst), nil
	}
	for k := 0; k < bursts; k++ {
		var phpNs, goNs float64
		if k%2 == 0 {
			if phpNs, err = php.burst(burst); err == nil {
				goNs, err = goBurst()
			}
		} else {
			if goNs, err = goBurst(); err == nil {
				phpNs, err = php.burst(burst)
			}
		}
		if err != nil {
			return nil, err
		}
		p.php, p.ours = append(p.php, phpNs), append(p.ours, goNs)
	}
	return p, nil
}

// phpProcess is a running interleave.php.
type phpProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	what   string // "engine row", for errors
}

// startPHP starts interleave.php for the row and waits for its "ready".
func startPHP(engineName, row, dir string) (*phpProcess, error) {
	cmd := exec.Command("php", phpInterleave, engineName, row, dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("php %s: %w", phpInterleave, err)
	}
	p := &phpProcess{cmd: cmd, stdin: stdin, stdout: bufio.NewReader(stdout), what: engineName + " " + row}
	line, err := p.stdout.ReadString('\n')
	if err != nil || line != "ready\n" {
		p.close()
		return nil, fmt.Errorf("php %s %s: got %q instead of ready: %v", phpInterleave, p.what, line, err)
	}
	return p, nil
}

// burst has PHP do the next n operations and returns its nanoseconds per operation.
func (p *phpProcess) burst(n int) (float64, error) {
	if _, err := fmt.Fprintf(p.stdin, "%d\n", n); err != nil {
		return 0, fmt.Errorf("php %s: %w", p.what, err)
	}
	line, err := p.stdout.ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("php %s: %w", p.what, err)
	}
	ns, err := parseElapsed(line)
	if err != nil {
		return 0, fmt.Errorf("php %s: %w", p.what, err)
	}
	return ns / float64(n), nil
}

// close ends the process (EOF on its stdin) and waits for it.
func (p *phpProcess) close() {
	_ = p.stdin.Close()
	_ = p.cmd.Wait()
}

// parseElapsed reads interleave.php's answer: elapsed nanoseconds, > 0.
func parseElapsed(line string) (float64, error) {
	ns, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
	if err != nil || ns <= 0 {
		return 0, fmt.Errorf("answer %q is not a positive count of nanoseconds", line)
	}
	return float64(ns), nil
}

// quartiles is the median of xs with its lower and upper quartile (the
// medians of the lower and upper halves): the middle half of the bursts,
// which a few bursts hit by another process's writeback do not stretch.
func quartiles(xs []float64) (lo, mid, hi float64) {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	return median(s[:n/2+n%2]), median(s), median(s[n/2:])
}

// The Go sides. Each mirrors its package's benchmark (bench_test.go) and
// interleave.php's case: the same data set, operation and ids.

// docFixture writes docstore's 20k-record fixture under root, the record
// files directly with their canonical bytes (docs/format/docstore.md §2.2).
func docFixture(root string) (*docstore.Store, error) {
	gen := uuidv7.NewGenerator(nil, nil)
	base := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	dir := docstore.CollectionDir(root, "pages") + "/data/"
	for i := 0; i < 20000; i++ {
		id, err := gen.NewAt(base + int64(i))
		if err != nil {
			return nil, err
		}
		content, err := docRecord(id, docData(i))
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir+id[24:26], 0o777); err != nil {
			return nil, err
		}
		if err := os.WriteFile(dir+id[24:26]+"/"+id+".jsonc", content, 0o666); err != nil {
			return nil, err
		}
	}
	return docstore.Open(root, "pages", docstore.Options{})
}

func docData(i int) *phpjson.Array {
	a := phpjson.NewArray(5)
	a.SetString("title", fmt.Sprintf("Record number %d", i))
	a.SetString("kind", fmt.Sprintf("k%d", i%10))
	a.SetString("tag", fmt.Sprintf("t%d", i%50))
	a.SetString("n", int64(i))
	a.SetString("body", "A short body of text for the benchmark.")
	return a
}

// docRecord is a record file's canonical bytes: {"id":"<id>","data":<J(data)>}\n.
func docRecord(id string, data *phpjson.Array) ([]byte, error) {
	b, err := phpjson.AppendEncode([]byte(`{"id":"`+id+`","data":`), data)
	return append(b, "}\n"...), err
}

func openDocPut(dir string) (func(int) error, io.Closer, error) {
	s, err := docFixture(dir)
	if err != nil {
		return nil, nil, err
	}
	gen := uuidv7.NewGenerator(nil, nil)
	return func(i int) error {
		id, err := gen.New()
		if err == nil {
			_, err = s.Put(docData(i), id)
		}
		return err
	}, s, nil
}

func openDocPutRaw(dir string) (func(int) error, io.Closer, error) {
	s, err := docFixture(dir)
	if err != nil {
		return nil, nil, err
	}
	gen := uuidv7.NewGenerator(nil, nil)
	return func(i int) error {
		id, err := gen.New()
		if err != nil {
			return err
		}
		content, err := docRecord(id, docData(i))
		if err != nil {
			return err
		}
		return s.PutRaw(id, content)
	}, s, nil
}

func openLogPut(dir string) (func(int) error, io.Closer, error) {
	l, err := seglog.Open(dir, "events", seglog.Options{MaxSegmentBytes: 16 << 10})
	if err != nil {
		return nil, nil, err
	}
	d := phpjson.NewArray(4)
	d.SetString("type", "page.saved")
	d.SetString("n", int64(1))
	d.SetString("ratio", 0.5)
	d.SetString("path", "/a/b/c")
	return func(i int) error {
		ts := int64(1716384278000) + int64(i)
		_, err := l.Put(d, fmt.Sprintf("%08x-%04x-7000-8000-%012x", ts>>16, ts&0xffff, i))
		return err
	}, l, nil
}

// queueFixture opens the queue "jobs" under dir holding 20k pending jobs.
func queueFixture(dir string) (*queue.Queue, error) {
	q, err := queue.Open(dir, "jobs", queue.Options{})
	if err != nil {
		return nil, err
	}
	jobs := make([]queue.Job, 20000)
	for i := range jobs {
		a := phpjson.NewArray(3)
		a.SetString("task", "render")
		a.SetString("page", int64(i))
		a.SetString("url", fmt.Sprintf("https://example.test/p/%d", i))
		jobs[i].Payload = a
	}
	if _, err := q.EnqueueMany(jobs); err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

func openQueueEnqueue(dir string) (func(int) error, io.Closer, error) {
	q, err := queueFixture(dir)
	if err != nil {
		return nil, nil, err
	}
	payload := phpjson.NewArray(2)
	payload.SetString("task", "render")
	payload.SetString("page", int64(1))
	return func(int) error {
		_, err := q.Enqueue(payload, "")
		return err
	}, q, nil
}

func openQueueClaim(dir string) (func(int) error, io.Closer, error) {
	q, err := queueFixture(dir)
	if err != nil {
		return nil, nil, err
	}
	return func(int) error {
		rec, err := q.Claim()
		if err == nil && rec == nil {
			err = fmt.Errorf("nothing to claim")
		}
		return err
	}, q, nil
}

func openQueueComplete(dir string) (func(int) error, io.Closer, error) {
	q, err := queueFixture(dir)
	if err != nil {
		return nil, nil, err
	}
	recs, err := q.ClaimMany(20000)
	if err != nil {
		q.Close()
		return nil, nil, err
	}
	return func(i int) error { return q.Complete(recs[i].ID, true) }, q, nil
}
