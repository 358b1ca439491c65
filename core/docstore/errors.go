package docstore

import (
	"fmt"
	"syscall"

	"github.com/storhfs/storhfs/core/docindex"
)

// PHP exception texts (docs/format/docstore.md §11) used by this package.
const (
	msgInvalidID        = "Invalid UUIDv7 value."
	msgIDMismatch       = "Storage record id does not match its path."
	msgNotObject        = "JSONC document must decode to an object."
	msgInvalidJSONC     = "Invalid JSONC storage file: "
	msgCouldNotRead     = "Could not read storage file: "
	msgCouldNotDelete   = "Could not delete storage record: "
	msgQuarantine       = "Could not quarantine corrupt storage record: "
	msgLockOpen         = "Could not open DocStore collection lock."
	msgLock             = "Could not lock DocStore collection."
	msgImportRows       = "JSONL import rows must be objects."
	msgImportOpen       = "Could not open JSONL import file: "
	msgExportOpen       = "Could not open JSONL export file: "
	msgQueryLimit       = "Record query limit must be at least 1."
	msgQueryField       = "Record query field cannot be empty."
	msgQueryValue       = "Record query value must be scalar or null."
	msgCollectionExists = "collection is not empty"
)

// kind is a sentinel error class. Concrete errors carry PHP's exact text in
// Error() and unwrap to their kind, so callers test them with errors.Is.
type kind struct {
	name   string
	parent error
}

func (k *kind) Error() string { return k.name }
func (k *kind) Unwrap() error { return k.parent }

var (
	// ErrInvalidRecord: a record file (or the bytes given to PutRaw) is not
	// something PHP's get() would accept (docs/format/docstore.md §2.3).
	ErrInvalidRecord error = &kind{name: "invalid storage record"}
	// ErrIDMismatch: the record's id differs from the one its name says.
	// It is also an ErrInvalidRecord.
	ErrIDMismatch error = &kind{name: msgIDMismatch, parent: ErrInvalidRecord}
	// ErrInvalidID: an id argument is not a UUIDv7 (docs/format/docstore.md §3.1).
	ErrInvalidID error = &kind{name: msgInvalidID}
	// ErrUniqueViolation: a write would give a unique index value a second
	// id (the docindex class; texts "Unique index violation on field: <f>").
	ErrUniqueViolation = docindex.ErrUniqueViolation
	// ErrInvalidArgument: a RecordQuery or row argument error.
	ErrInvalidArgument error = &kind{name: "invalid argument"}
	// ErrReadOnly: a mutation on a Store opened with Options.ReadOnly. It
	// unwraps to syscall.EROFS.
	ErrReadOnly error = &kind{name: "read-only collection", parent: syscall.EROFS}
	// ErrNotEmpty: RemoveEmpty found records in the collection. It unwraps
	// to syscall.ENOTEMPTY.
	ErrNotEmpty error = &kind{name: msgCollectionExists, parent: syscall.ENOTEMPTY}
)

// phpError is an error whose text is PHP's message and whose class is k.
type phpError struct {
	msg   string
	k     error
	cause error
}

func (e *phpError) Error() string { return e.msg }

// Unwrap exposes both the class and the underlying cause (if any).
func (e *phpError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.k, e.cause} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func newError(k error, msg string) error { return &phpError{msg: msg, k: k} }

func wrapError(k error, msg string, cause error) error {
	return &phpError{msg: msg, k: k, cause: cause}
}

func errInvalidID() error { return newError(ErrInvalidID, msgInvalidID) }

// withID prefixes err's text with the record id, keeping its classes; used
// for PutRaw, whose caller (the mount) logs the message. Index drift also
// says that the record is stored and what to run.
func withID(id string, err error) error {
	switch e := err.(type) {
	case nil:
		return nil
	case *phpError:
		return &phpError{msg: id + ": " + e.msg, k: e.k, cause: e.cause}
	case indexDrift:
		return fmt.Errorf("%s: %w: %w", id, ErrIndexDrift, e.cause)
	}
	return fmt.Errorf("%s: %w", id, err)
}
