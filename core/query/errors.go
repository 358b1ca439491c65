package query

import (
	"errors"

	"github.com/storhfs/storhfs/core/uuidv7"
)

// PHP exception texts (docs/format/docstore.md §11). Error() is exactly PHP's
// message, so conformance results can compare them.
var (
	ErrEmptyField       = errors.New("Query field cannot be empty.")
	ErrLimit            = errors.New("Query limit must be at least 1.")
	ErrOrderDirection   = errors.New("Query order direction must be asc or desc.")
	ErrAndWhereCallback = errors.New("andWhere callback must return a QueryBuilder.")
	ErrOrWhereCallback  = errors.New("orWhere callback must return a QueryBuilder.")
	// ErrInvalidID is raised by Cursor for an id that is not a UUIDv7.
	ErrInvalidID = uuidv7.ErrInvalid
)

// UnsupportedOperatorError is PHP's "Unsupported query operator: <op>".
type UnsupportedOperatorError struct{ Op string }

func (e *UnsupportedOperatorError) Error() string { return "Unsupported query operator: " + e.Op }

// OperandError reports operands that PHP's typed builder methods would have
// refused (wrong count, in() without an array, prefix() without a string).
// PHP has no message for these (they are TypeErrors there).
type OperandError struct {
	Op     string
	Reason string
}

func (e *OperandError) Error() string { return "query operator " + e.Op + ": " + e.Reason }
