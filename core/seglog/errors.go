package seglog

import "errors"

// Exception texts of storh's SegmentedLogStore (docs/format/segmentedlog.md §2.4, §4.2,
// §5.3, §6.3). Error() is exactly PHP's message: the conformance results
// compare messages.
var (
	ErrMalformedLine   = errors.New("Malformed segmented log line.")
	ErrCorruptLine     = errors.New("Corrupt segmented log line.")
	ErrNoEnvelope      = errors.New("Segmented log line does not contain a record envelope.")
	ErrReadRecord      = errors.New("Could not read segment record.")
	ErrWrongRecord     = errors.New("Segmented log state index points at the wrong record.")
	ErrStateDrift      = errors.New("Segmented log state index drift.")
	ErrSegmentTooSmall = errors.New("Segment size must be at least 256 bytes.")
	ErrSparseInterval  = errors.New("Sparse index interval must be at least 1.")
	ErrLimit           = errors.New("Record query limit must be at least 1.")
	ErrRetentionDays   = errors.New("Retention days must be at least 1.")
	ErrNoCutoff        = errors.New("Retention cutoff was not configured.")
)

// SegmentOpenError is "Could not open segment: <file>" (file relative to
// segments/), wrapping the cause.
type SegmentOpenError struct {
	File string
	Err  error
}

func (e *SegmentOpenError) Error() string { return "Could not open segment: " + e.File }
func (e *SegmentOpenError) Unwrap() error { return e.Err }

// PartitionError is "Unsupported log partition: <name>".
type PartitionError struct{ Partition string }

func (e *PartitionError) Error() string { return "Unsupported log partition: " + e.Partition }
