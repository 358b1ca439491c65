package main

import (
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a spinner on stderr for one long engine call. The engines
// report no progress of their own, so it shows the description, the
// elapsed time and, when a counter is given, a growing byte count (for
// export, the output file's size). It exists only when stderr is a
// terminal: in cron jobs and pipes nothing extra is ever written.
type progress struct {
	bar      *progressbar.ProgressBar
	stop     chan struct{}
	done     chan struct{}
	finished bool
}

// progressTick is how often the spinner redraws and the counter is read.
const progressTick = 150 * time.Millisecond

// startProgress starts a spinner on stderr if stderr is a terminal, else
// returns nil (a nil *progress is valid and does nothing). bytes, when not
// nil, is polled for a byte count to display.
func startProgress(stderr *os.File, description string, bytes func() int64) *progress {
	if stderr == nil || !term.IsTerminal(int(stderr.Fd())) {
		return nil
	}
	return runProgress(stderr, description, bytes)
}

// runProgress draws the spinner on w unconditionally (startProgress decides
// whether to).
func runProgress(w *os.File, description string, bytes func() int64) *progress {
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(description),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetElapsedTime(true),
		// Drawn only from tick: the library's own spinner goroutine reads
		// its state without the lock (a data race in v3.19.1).
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetRenderBlankState(true),
	}
	if bytes != nil {
		opts = append(opts, progressbar.OptionShowBytes(true))
	}
	p := &progress{
		bar:  progressbar.NewOptions64(-1, opts...),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go p.tick(bytes)
	return p
}

func (p *progress) tick(bytes func() int64) {
	defer close(p.done)
	t := time.NewTicker(progressTick)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			if bytes != nil {
				_ = p.bar.Set64(bytes())
			}
			_ = p.bar.RenderBlank() // redraws (spinner frame, elapsed time)
		}
	}
}

// Finish stops the spinner and clears its line; later calls do nothing.
func (p *progress) Finish() {
	if p == nil || p.finished {
		return
	}
	p.finished = true
	close(p.stop)
	<-p.done
	_ = p.bar.Finish()
}

// withProgress runs fn with a spinner on stderr (when it is a terminal).
func withProgress(description string, bytes func() int64, fn func() error) error {
	p := startProgress(os.Stderr, description, bytes)
	defer p.Finish()
	return fn()
}

// fileSize returns a poller of path's current size (0 while it is missing).
func fileSize(path string) func() int64 {
	return func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
}

// startCountProgress is startProgress for a known amount of work: a bar
// of count() out of total items (nil unless stderr is a terminal).
func startCountProgress(stderr *os.File, description string, total int64, count func() int64) *progress {
	if stderr == nil || !term.IsTerminal(int(stderr.Fd())) {
		return nil
	}
	return runCountProgress(stderr, description, total, count)
}

// runCountProgress draws the bar on w unconditionally.
func runCountProgress(w *os.File, description string, total int64, count func() int64) *progress {
	p := &progress{
		bar: progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(description),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetRenderBlankState(true),
		),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go p.tick(count)
	return p
}
