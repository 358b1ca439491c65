package query

// Paged candidates: a query with a limit whose only usable condition is one
// `eq` on an equality field reads that entry's ids page by page (through
// EqualityPager) instead of all of them. Its candidates are those of
// candidateIDs, sorted and unique, in the same order; only fewer are read.

// pagedCondition returns the condition whose ids can be paged: the query
// has one group, exactly one of its conditions may use an index
// (mayUseIndex), and that one is `eq` on an equality field with a scalar
// operand other than a float zero (which looks up two entries).
func (b *Builder) pagedCondition(ix Indexed) (*Condition, bool) {
	if len(b.groups) != 1 {
		return nil, false
	}
	var paged *Condition
	for i := range b.groups[0] {
		c := &b.groups[0][i]
		if !mayUseIndex(ix, c) {
			continue
		}
		if paged != nil {
			return nil, false
		}
		paged = c
	}
	if paged == nil || paged.Op != "eq" || !equalityField(ix, paged.Field) || !isScalar(paged.Value) {
		return nil, false
	}
	if f, ok := paged.Value.(float64); ok && f == 0 {
		return nil, false
	}
	return paged, true
}

// mayUseIndex is false only for conditions conditionCandidates never uses.
func mayUseIndex(ix Indexed, c *Condition) bool {
	if c.Field == "id" {
		return c.Op == "eq" || c.Op == "in"
	}
	_, rng, ok := ix.Definition(c.Field)
	switch {
	case !ok:
		return false
	case c.Op == "eq" || c.Op == "in":
		return true
	case c.Op == "lt" || c.Op == "lte" || c.Op == "between" || c.Op == "prefix":
		return rng
	}
	return false
}

// eachPagedCandidate is eachCandidate over the ids of c, read a page at a
// time: first as many as need asks for, then geometrically more when
// candidates fail the predicate. usable=false when the entry is not
// indexed (the caller then scans). Should the definition vanish between
// pages (a concurrent reindex), the records after the last page are
// scanned.
func (b *Builder) eachPagedCandidate(ix Indexed, p EqualityPager, c *Condition, need func() int, emit func(Record) error) (usable bool, err error) {
	after := ""
	if b.hasCur {
		after = b.cursor
	}
	prev := 0 // ids asked for by the previous page
	for first := true; ; first = false {
		want := need()
		if want == 0 {
			return true, nil
		}
		n := max(want, 2*prev)
		ids, indexed, err := p.EqualityIDsFrom(c.Field, c.Value, after, n)
		switch {
		case err != nil:
			return true, err
		case !indexed && first:
			return false, nil
		case !indexed:
			from := after
			return true, b.src.Scan(func(r Record) error {
				if r.ID <= from {
					return nil
				}
				return emit(r)
			})
		}
		if err := b.eachCandidate(ix, ids, need, emit); err != nil {
			return true, err
		}
		if len(ids) < n {
			return true, nil
		}
		after, prev = ids[len(ids)-1], n
	}
}
