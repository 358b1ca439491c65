// Package proctest holds helpers for tests of code that runs goroutines:
// run a test under a given GOMAXPROCS, and check that no goroutine
// outlives the code under test.
package proctest

import (
	"runtime"
	"testing"
	"time"
)

// WithProcs sets GOMAXPROCS to n for the rest of the test.
func WithProcs(t testing.TB, n int) {
	t.Helper()
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// CheckNoLeak fails the test when more goroutines than base are still
// running after a grace period of 2 s.
func CheckNoLeak(t testing.TB, base int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > base {
		t.Fatalf("goroutines leaked: %d > %d", g, base)
	}
}
