package queue

import (
	"errors"
	"fmt"

	"github.com/storhfs/storhfs/core/guard"
)

// PHP's exception texts (docs/format/queue.md §2.2, §5.2). Error() of these is exactly
// the PHP message: verify() reports them and the conformance results compare
// them.
var (
	ErrTornLine       = errors.New("Torn log queue line.")
	ErrMalformedLine  = errors.New("Malformed log queue line.")
	ErrCorruptLine    = errors.New("Corrupt log queue line.")
	ErrNotObject      = errors.New("Log queue event must be an object.")
	ErrInvalidEvent   = errors.New("Invalid log queue event.")
	ErrClaimLimit     = errors.New("Queue claim limit must be at least 1.")
	ErrOpenLock       = errors.New("Could not open log queue lock.")
	ErrOpenLog        = errors.New("Could not open log queue file.")
	ErrLock           = errors.New("Could not lock log queue.")
	ErrReadLog        = errors.New("Could not read log queue file.")
	ErrStateDrift     = errors.New("Log queue state drift.")
	ErrPayloadTooDeep = errors.New("Maximum stack depth exceeded")
	ErrClosed         = errors.New("log queue is closed")
)

// UnsupportedOpError is PHP's "Unsupported log queue event: <op>".
type UnsupportedOpError struct{ Op string }

func (e *UnsupportedOpError) Error() string { return "Unsupported log queue event: " + e.Op }

// phpError is an error whose text is PHP's message; Err keeps the cause
// (an OS error) for errors.Is/As.
type phpError struct {
	msg string
	err error
}

func (e *phpError) Error() string { return e.msg }
func (e *phpError) Unwrap() error { return e.err }

func storageError(format, path string, cause error) error {
	return &phpError{msg: fmt.Sprintf(format, path), err: cause}
}

func withCause(sentinel, cause error) error {
	return &phpError{msg: sentinel.Error(), err: errors.Join(sentinel, cause)}
}

// guardError maps a guard fault to the queue's PHP message.
func guardError(f guard.Fault) error {
	switch f {
	case guard.Torn:
		return ErrTornLine
	case guard.Malformed:
		return ErrMalformedLine
	default:
		return ErrCorruptLine
	}
}

// LineError is the first invalid line of a replay: verify() reports it as
// "line N: <message>".
type LineError struct {
	Line   int   // 1-based line number
	Offset int64 // byte offset of the line's start (the valid-prefix end)
	Err    error // PHP's message for the failed check
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Err.Error()) }
func (e *LineError) Unwrap() error { return e.Err }
