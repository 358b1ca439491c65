package docindex

import "errors"

// PHPError is a failure whose Error() is exactly storh's PHP message (the
// conformance results compare these texts); Err keeps the cause, if any.
type PHPError struct {
	Msg string
	Err error
}

func (e *PHPError) Error() string { return e.Msg }
func (e *PHPError) Unwrap() error { return e.Err }

// ErrUniqueViolation is the class of every unique-index violation; test with
// errors.Is. The concrete error is a *UniqueViolationError.
var ErrUniqueViolation = errors.New("Unique index violation")

// UniqueViolationError reports the unique field a write would duplicate.
// Error() is PHP's text "Unique index violation on field: <field>".
type UniqueViolationError struct{ Field string }

func (e *UniqueViolationError) Error() string {
	return "Unique index violation on field: " + e.Field
}

func (e *UniqueViolationError) Is(target error) bool { return target == ErrUniqueViolation }

func errMalformedEquality(path string) error {
	return &PHPError{Msg: "Malformed equality index: " + path}
}

func errReadEquality(path string, cause error) error {
	return &PHPError{Msg: "Could not read equality index: " + path, Err: cause}
}
