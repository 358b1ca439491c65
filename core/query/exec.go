package query

import (
	"errors"
	"slices"
	"sort"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// Get returns the results (PHP get()): matches in the source's order
// (DocStore: ascending id; SegmentedLog: stream order), stably sorted by
// the orderBy field when set, then cut to the limit.
func (b *Builder) Get() ([]Record, error) {
	out := make([]Record, 0, min(max(b.limit, 0), 1024)) // limit: the usual result size
	err := b.Stream(func(r Record) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Stream calls fn for each result of Get, in order. Without orderBy it
// streams and stops reading at the limit; with orderBy it holds the
// matches (not the collection) to sort them. fn returning ErrStop ends the
// stream without error.
func (b *Builder) Stream(fn func(Record) error) error {
	if b.err != nil {
		return b.err
	}
	if !b.ordered {
		return ignoreStop(b.eachMatch(b.limit, b.recordQueryShape(), fn))
	}
	var matches []Record
	if err := b.eachMatch(0, false, func(r Record) error {
		matches = append(matches, r)
		return nil
	}); err != nil {
		return err
	}
	if err := b.sortRecords(matches); err != nil {
		return err
	}
	if b.limit > 0 && len(matches) > b.limit {
		matches = matches[:b.limit]
	}
	for _, r := range matches {
		if err := fn(r); err != nil {
			return ignoreStop(err)
		}
	}
	return nil
}

// First returns the first result of Get with limit 1, nil when none.
func (b *Builder) First() (*Record, error) {
	recs, err := b.Limit(1).Get()
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	return &recs[0], nil
}

// Count returns the number of matches, capped at the limit (PHP count()).
// A single eq/in on an equality field (or two eqs with a compound entry)
// is answered from the stored entry counts, as PHP does (indexCount); every
// other shape counts real matches (scan semantics), also where PHP answers
// from index files without a value check (docs/format/indexes.md §11.5).
func (b *Builder) Count() (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if counter, ok := b.src.(Counter); ok && !b.HasConditions() && !b.hasCur {
		n, err := counter.CountAll()
		if err != nil {
			return 0, err
		}
		if b.limit > 0 && n > b.limit {
			n = b.limit
		}
		return n, nil
	}
	if n, ok, err := b.indexCount(); err != nil || ok {
		if b.limit > 0 && n > b.limit {
			n = b.limit
		}
		return n, err
	}
	n := 0
	err := b.eachMatch(b.limit, true, func(Record) error {
		n++
		return nil
	})
	return n, ignoreStop(err)
}

// eachMatch calls fn for every matching record in base order (before
// orderBy), and stops after stop matches when stop > 0. The records come
// from the direct id lookup, index candidates, or a full scan; every one is
// checked with Matches, so all three give what a scan gives. seekCursor
// lets a CursorScanner source start its scan past the cursor.
func (b *Builder) eachMatch(stop int, seekCursor bool, fn func(Record) error) error {
	if rec, applies, err := b.directID(); err != nil || applies {
		if err != nil || rec == nil {
			return err
		}
		return fn(*rec)
	}
	seen := 0
	emit := func(r Record) error {
		ok, err := b.Matches(r.ID, r.Data)
		if err != nil || !ok {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
		seen++
		if stop > 0 && seen >= stop {
			return ErrStop
		}
		return nil
	}
	if ix, ok := b.src.(Indexed); ok && b.HasConditions() {
		need := func() int { return max(stop-seen, 0) }
		if stop == 0 {
			need = nil
		}
		if p, ok := b.src.(EqualityPager); ok && stop > 0 {
			if c, ok := b.pagedCondition(ix); ok {
				usable, err := b.eachPagedCandidate(ix, p, c, need, emit)
				if err != nil || usable {
					return ignoreStop(err)
				}
			}
		}
		ids, usable, err := candidateIDs(ix, b.groups)
		if err != nil {
			return err
		}
		if usable {
			return ignoreStop(b.eachCandidate(ix, ids, need, emit))
		}
	}
	if cs, ok := b.src.(CursorScanner); ok && b.hasCur && seekCursor {
		return ignoreStop(cs.ScanAfter(b.cursor, emit))
	}
	return ignoreStop(b.src.Scan(emit))
}

// recordQueryShape reports whether PHP's get() on a log streams with the
// cursor as its after() bound (QueryBuilder::record_query): no orderBy,
// one group, only eq conditions on fields other than id with a scalar or
// null value. Any other get() streams everything and filters; count()
// always starts past the cursor (count_records).
func (b *Builder) recordQueryShape() bool {
	if b.ordered || len(b.groups) != 1 {
		return false
	}
	for _, c := range b.groups[0] {
		if _, isArray := c.Value.(*phpjson.Array); c.Op != "eq" || c.Field == "id" || isArray {
			return false
		}
	}
	return true
}

// eachCandidate calls emit with the record of each candidate id (sorted,
// unique) in order. Ids at or before the cursor are skipped; an id Get
// would refuse (operand of id in, garbage in an index file) cannot be a
// record a scan would return; missing records are stale index entries.
//
// need (nil: no limit) is how many more matches the query wants. GetEach
// is first handed that many ids, so its read-ahead does not read past the
// limit when every candidate matches (the usual case), then geometrically
// more when candidates fail the predicate.
func (b *Builder) eachCandidate(ix Indexed, ids []string, need func() int, emit func(Record) error) error {
	if b.hasCur {
		ids = ids[sort.SearchStrings(ids, b.cursor+"\x00"):] // ids > cursor
	}
	prev := 0 // ids handed to the previous call
	for len(ids) > 0 {
		n := len(ids)
		if need != nil {
			want := need()
			if want == 0 {
				return nil
			}
			n = min(n, max(want, 2*prev))
		}
		err := ix.GetEach(ids[:n], func(_ string, rec *Record) error {
			if rec == nil {
				return nil
			}
			return emit(*rec)
		})
		if err != nil {
			return err
		}
		ids, prev = ids[n:], n
	}
	return nil
}

// directID is PHP direct_id_records (docs/format/indexes.md §11.1): with exactly one
// group holding `id eq` conditions the record is fetched by id. applies is
// false when the path does not apply; rec is nil when nothing matches.
func (b *Builder) directID() (rec *Record, applies bool, err error) {
	if len(b.groups) != 1 {
		return nil, false, nil
	}
	id, found := "", false
	for _, c := range b.groups[0] {
		if c.Field != "id" || c.Op != "eq" {
			continue
		}
		s, ok := c.Value.(string)
		if !ok || !uuidv7.Valid(s) || (found && s != id) {
			return nil, true, nil
		}
		id, found = s, true
	}
	if !found {
		return nil, false, nil
	}
	if b.hasCur && id <= b.cursor {
		return nil, true, nil
	}
	r, err := b.src.Get(id)
	if err != nil || r == nil {
		return nil, true, err
	}
	ok, err := b.Matches(r.ID, r.Data)
	if err != nil || !ok {
		return nil, true, err
	}
	return r, true, nil
}

// sortRecords sorts by the orderBy field with Compare, stably (ties keep
// base order in both directions; desc negates the comparison).
func (b *Builder) sortRecords(recs []Record) error {
	type keyed struct {
		key phpjson.Value
		rec Record
	}
	sorted := make([]keyed, len(recs))
	for i, r := range recs {
		sorted[i] = keyed{b.orderValue(r), r}
	}
	var cmpErr error
	slices.SortStableFunc(sorted, func(x, y keyed) int {
		r, err := Compare(x.key, y.key)
		if err != nil && cmpErr == nil {
			cmpErr = err
		}
		if b.orderDesc {
			return -r
		}
		return r
	})
	for i, k := range sorted {
		recs[i] = k.rec
	}
	return cmpErr
}

// orderValue is PHP order_value: the id for "id", else the data member or
// null when missing.
func (b *Builder) orderValue(r Record) phpjson.Value {
	if b.orderField == "id" {
		return r.ID
	}
	if r.Data == nil {
		return nil
	}
	v, _ := r.Data.Lookup(b.orderField)
	return v
}

func ignoreStop(err error) error {
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}
