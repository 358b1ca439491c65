// Package scratch gives a test binary one directory for files that must
// outlive a single test or benchmark run (fixtures built once, runs whose
// cleanup must not land on the next run), created on first use and
// removed when the binary exits: its TestMain calls Remove after m.Run.
package scratch

import (
	"os"
	"sync"
	"testing"
)

// Dir is a lazily created scratch directory; the zero value is ready.
type Dir struct {
	mu   sync.Mutex
	path string
}

// Path returns the directory, creating it on the first call.
func (d *Dir) Path(tb testing.TB) string {
	tb.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" {
		p, err := os.MkdirTemp("", "storhfs-scratch-")
		if err != nil {
			tb.Fatal(err)
		}
		d.path = p
	}
	return d.path
}

// New returns a new empty directory inside it.
func (d *Dir) New(tb testing.TB) string {
	tb.Helper()
	p, err := os.MkdirTemp(d.Path(tb), "run-")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// Remove deletes the directory and everything in it, if it was created.
func (d *Dir) Remove() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path != "" {
		_ = os.RemoveAll(d.path)
		d.path = ""
	}
}
