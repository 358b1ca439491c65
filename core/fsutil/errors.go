// Package fsutil holds the file-system primitives storh engines share:
// flock(2) locks, writer markers, durable temp-file writes, appends, the
// orphaned-temp sweep and PID liveness (spec docstore.md sections 4-6,
// segmentedlog.md 1.6-1.7, queue.md A10).
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
