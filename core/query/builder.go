package query

import (
	"strings"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// Builder is storh's QueryBuilder: an OR of groups, each an AND of
// conditions, plus ordering, limit and cursor (docs/format/docstore.md §8.5).
//
// Builders are immutable like PHP's: every method returns a new Builder and
// leaves the receiver unchanged. PHP throws argument errors from the
// builder methods; here the first such error is kept and returned by the
// terminal call (Get, Stream, First, Count, Explain), and later builder
// calls are ignored once an error is recorded.
type Builder struct {
	src    Source
	groups [][]Condition // never empty: a new query has one empty group

	orderField string // "" = no orderBy (PHP order_field null)
	ordered    bool
	orderDesc  bool

	limit  int // 0 = no limit
	cursor string
	hasCur bool

	err error
}

// New returns the query of src that matches every record (one empty group).
func New(src Source) *Builder {
	return &Builder{src: src, groups: [][]Condition{nil}}
}

// clone copies b so that appending to any group of the copy never writes
// into b's arrays.
func (b *Builder) clone() *Builder {
	next := *b
	next.groups = make([][]Condition, len(b.groups))
	for i, g := range b.groups {
		next.groups[i] = g[:len(g):len(g)]
	}
	return &next
}

func (b *Builder) fail(err error) *Builder {
	next := b.clone()
	next.err = err
	return next
}

// Where appends the condition `field op operands` to every group (PHP
// where(field)->op(...)). Operators: eq, neq, in, notIn (one PHP array
// operand), gt, gte, lt, lte, prefix (one operand, prefix a string),
// between (two), exists, missing (none).
func (b *Builder) Where(field, op string, operands ...phpjson.Value) *Builder {
	if b.err != nil {
		return b
	}
	c, err := newCondition(field, op, operands)
	if err != nil {
		return b.fail(err)
	}
	return b.addConditions([]Condition{c})
}

// addConditions appends every condition to every group.
func (b *Builder) addConditions(conds []Condition) *Builder {
	next := b.clone()
	for i := range next.groups {
		next.groups[i] = append(next.groups[i], conds...)
	}
	return next
}

// AndWhere appends the conditions of the branch built by fn, flattened
// across the branch's groups (its OR structure is lost), to every group.
// fn returning nil is PHP's "andWhere callback must return a QueryBuilder.".
func (b *Builder) AndWhere(fn func(*Builder) *Builder) *Builder {
	if b.err != nil {
		return b
	}
	branch := fn(New(b.src))
	if branch == nil {
		return b.fail(ErrAndWhereCallback)
	}
	if branch.err != nil {
		return b.fail(branch.err)
	}
	var flat []Condition
	for _, g := range branch.groups {
		flat = append(flat, g...)
	}
	return b.addConditions(flat)
}

// OrWhere appends the branch's groups as new groups. The receiver's groups
// stay, so New(src).OrWhere(...) keeps the initial empty group and matches
// every record, as in PHP (quirk "bare-orwhere", reproduced on purpose:
// it is the documented behaviour of storh's builder).
func (b *Builder) OrWhere(fn func(*Builder) *Builder) *Builder {
	if b.err != nil {
		return b
	}
	branch := fn(New(b.src))
	if branch == nil {
		return b.fail(ErrOrWhereCallback)
	}
	if branch.err != nil {
		return b.fail(branch.err)
	}
	next := b.clone()
	for _, g := range branch.groups {
		next.groups = append(next.groups, g[:len(g):len(g)])
	}
	return next
}

// OrderBy sorts results by field ("id" = the record id; a missing field
// sorts as null) with Compare; dir is "asc" or "desc", case-insensitive
// ("" means asc, PHP's default).
func (b *Builder) OrderBy(field, dir string) *Builder {
	if b.err != nil {
		return b
	}
	if dir == "" {
		dir = "asc"
	}
	d := strings.ToLower(dir)
	if d != "asc" && d != "desc" {
		return b.fail(ErrOrderDirection)
	}
	next := b.clone()
	next.orderField, next.ordered, next.orderDesc = field, true, d == "desc"
	return next
}

// Limit keeps at most n results (n >= 1), applied after ordering.
func (b *Builder) Limit(n int) *Builder {
	if b.err != nil {
		return b
	}
	if n < 1 {
		return b.fail(ErrLimit)
	}
	next := b.clone()
	next.limit = n
	return next
}

// Page is PHP page(size): the same as Limit.
func (b *Builder) Page(n int) *Builder { return b.Limit(n) }

// Cursor keeps records whose id is bytewise greater than id (a UUIDv7).
func (b *Builder) Cursor(id string) *Builder {
	if b.err != nil {
		return b
	}
	if !uuidv7.Valid(id) {
		return b.fail(ErrInvalidID)
	}
	next := b.clone()
	next.cursor, next.hasCur = id, true
	return next
}

// Err returns the first builder error, if any.
func (b *Builder) Err() error { return b.err }

// HasConditions reports whether any group holds a condition.
func (b *Builder) HasConditions() bool {
	for _, g := range b.groups {
		if len(g) > 0 {
			return true
		}
	}
	return false
}

// Matches is PHP matches_data: the cursor holds (id > cursor) and at least
// one group has all its conditions true.
func (b *Builder) Matches(id string, data *phpjson.Array) (bool, error) {
	if b.hasCur && id <= b.cursor {
		return false, nil
	}
	for _, g := range b.groups {
		all := true
		for i := range g {
			ok, err := g[i].Matches(id, data)
			if err != nil {
				return false, err
			}
			if !ok {
				all = false
				break
			}
		}
		if all {
			return true, nil
		}
	}
	return false, nil
}
