package docstore

import (
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/query"
)

// Read-only views of a collection for the mount's hidden index folders
// (COLL/.by/; README.md, "Index folders and the whole-collection file"):
// what PHP's indexed equality query answers, field by field and value by
// value.

// EqualityFields returns the fields with an equality or unique index (not
// range; docs/format/indexes.md §2), sorted, after re-reading the
// manifest: definitions PHP added since the open show up.
func (s *Store) EqualityFields() ([]string, error) {
	if err := s.idx.Reload(); err != nil {
		return nil, err
	}
	var fields []string
	for _, d := range s.idx.Definitions() {
		if !d.Range {
			fields = append(fields, d.Field)
		}
	}
	return fields, nil
}

// EqualityValues returns the values that occur in field's equality
// entries (docindex.EqualityValues).
func (s *Store) EqualityValues(field string) ([]phpjson.Value, error) {
	return s.idx.EqualityValues(field)
}

// EqualIDs returns, in id order, the ids of the records PHP's
// where(field, '=', v)->get() returns when field has an equality index:
// the index's candidates, each read and checked with === (core/query,
// docs/format/indexes.md §11.2).
func (s *Store) EqualIDs(field string, v phpjson.Value) ([]string, error) {
	var ids []string
	err := s.Query().Where(field, "eq", v).Stream(func(r query.Record) error {
		ids = append(ids, r.ID)
		return nil
	})
	return ids, err
}

// EqualityCount is the stored count of field's entry for v (0 when there
// is none; docs/format/indexes.md §5.2).
func (s *Store) EqualityCount(field string, v phpjson.Value) (int64, error) {
	n, _, err := s.idx.EqualityCount(field, v)
	return n, err
}
