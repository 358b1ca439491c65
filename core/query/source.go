// Package query implements storh's QueryBuilder semantics
// (docs/format/docstore.md §8.5-8.6): a scan predicate that is the contract, optional index use that
// only narrows candidates (every candidate is re-checked by the scan
// predicate), count(), first() and explain().
//
// DocStore and SegmentedLog adapt their storage to Source (and DocStore's
// secondary indexes to Indexed).
package query

import (
	"errors"

	"github.com/storhfs/storhfs/core/phpjson"
)

// Record is one stored record: its id and its decoded data object.
type Record struct {
	ID   string
	Data *phpjson.Array
}

// Source is what a query reads.
type Source interface {
	// StoreClass is the PHP class name reported by explain()
	// ("Storh\\DocPerFileStore", or the log's class).
	StoreClass() string
	// Scan calls fn for every record in storage order (DocStore: id order).
	// fn returning ErrStop ends the scan early; Scan then returns nil.
	// Any other error from fn is returned as is.
	Scan(fn func(Record) error) error
	// Get returns the record with id, nil and no error when it is missing.
	Get(id string) (*Record, error)
}

// CursorScanner is optionally implemented by a Source that can start a
// scan past a cursor the way its PHP store does (SegmentedLog: the
// segments and lines PHP skips for a cursor it never reads, so a line it
// could not decode there does not fail the query). ScanAfter yields what
// Scan yields minus the ids <= after (bytewise). The query uses it where
// PHP's does: count(), and get() of the shape recordQueryShape describes.
type CursorScanner interface {
	ScanAfter(after string, fn func(Record) error) error
}

// Indexed is optionally implemented by a Source whose store has secondary
// indexes (DocStore adapts docindex.Manager). A Source implementing Indexed
// must Scan in ascending bytewise id order (index candidates are visited in
// that order). Lookups return indexed=false when the index is absent or
// unusable; the query then falls back to a scan. The query engine trusts an
// index to hold every record whose value it indexes (docs/format/indexes.md §4), and
// re-checks every candidate with the scan predicate.
type Indexed interface {
	// Definition reports whether field has an index definition while the
	// indexes are active (ok=false when there is no usable manifest), and
	// its kind.
	Definition(field string) (unique, rangeIdx, ok bool)
	// EqualityIDs returns the ids of eq/<FK(field)>/<VK(v)> (equality
	// definitions only). Compound entries are not needed: the engine
	// intersects equality sets instead.
	EqualityIDs(field string, v phpjson.Value) (ids []string, indexed bool, err error)
	// RangeScan walks the effective content of field's range index (main
	// file merged with delta, removes applied) in range-key order for keys
	// k with fromKey <= k <= toKey ("" = unbounded), calling fn per key
	// with the decoded value and its live ids.
	RangeScan(field, fromKey, toKey string, fn func(key string, value phpjson.Value, ids []string) error) (indexed bool, err error)
	// RangeKey is docindex.RangeKey (RK, docs/format/indexes.md §3.3).
	RangeKey(v phpjson.Value) string
	// GetEach calls fn for each of ids in order with its record, as Get
	// would return it, except that an id Get would refuse as invalid gives
	// nil like a missing record (no record can have it). It may read a few
	// records ahead of fn (DocStore reads the files concurrently). A read
	// error is returned when fn would have reached that id; fn returning
	// ErrStop ends GetEach without error, other errors from fn are
	// returned as is.
	GetEach(ids []string, fn func(id string, rec *Record) error) error
}

// Counter is optionally implemented by a Source that can count all its
// records cheaply (count() without conditions and without cursor).
type Counter interface {
	CountAll() (int, error)
}

// ErrStop is returned by a Scan callback to end the scan early without error.
var ErrStop = errors.New("query: stop scan")

// EqualityPager is optionally implemented by an Indexed source that can
// read the ids of an equality entry a page at a time (DocStore: docindex
// EqualityIDsFrom), so that a query with a limit reads only the ids it
// needs. EqualityIDsFrom returns the ids EqualityIDs gives for field == v,
// sorted bytewise without duplicates, restricted to those after `after`
// ("" for the first) and cut to at most limit (limit <= 0: all); indexed
// is false where the entry cannot be paged (no definition, a range one).
type EqualityPager interface {
	EqualityIDsFrom(field string, v phpjson.Value, after string, limit int) (ids []string, indexed bool, err error)
}
