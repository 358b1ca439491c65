package proctest

import (
	"runtime"
	"testing"
)

func TestWithProcsRestores(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Run("inner", func(t *testing.T) {
		WithProcs(t, 1)
		if got := runtime.GOMAXPROCS(0); got != 1 {
			t.Fatalf("GOMAXPROCS %d, want 1", got)
		}
	})
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Fatalf("GOMAXPROCS %d after the test, want %d", got, before)
	}
}

// recorder is a testing.TB that records a failure instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestCheckNoLeakSeesALeak(t *testing.T) {
	base := runtime.NumGoroutine()
	stop := make(chan struct{})
	go func() { <-stop }()
	r := &recorder{TB: t}
	CheckNoLeak(r, base)
	close(stop)
	if !r.failed {
		t.Fatal("a goroutine left running was not reported")
	}
	CheckNoLeak(t, base) // the goroutine ends once stop is closed
}
