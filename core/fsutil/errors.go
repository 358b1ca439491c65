// Package fsutil holds the file-system primitives storh engines share:
// flock(2) locks, writer markers, durable temp-file writes, appends, the
// orphaned-temp sweep and PID liveness (docs/format/docstore.md §4-6,
// docs/format/segmentedlog.md §1.6-1.7, docs/format/queue.md §8).
package fsutil

// Error is a failure whose Error() is exactly storh's PHP message (the
// conformance results compare these texts); Err keeps the OS cause.
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func newError(msg string, cause error) error { return &Error{Msg: msg, Err: cause} }
