package query

import (
	"math"

	"github.com/storhfs/storhfs/core/phpjson"
)

// IndexCounter is optionally implemented by an Indexed source that can
// read the stored counts of its equality and compound entries (DocStore:
// docindex EqualityCount / CompoundCount). indexed=false means the entry
// cannot answer (no usable definition); the count then comes from records.
type IndexCounter interface {
	EqualityCount(field string, v phpjson.Value) (n int64, indexed bool, err error)
	CompoundCount(f1 string, v1 phpjson.Value, f2 string, v2 phpjson.Value) (n int64, indexed bool, err error)
}

// indexCount answers count() from stored entry counts where that count is
// exactly the scan's, given an index that holds every record whose value
// it indexes and nothing else (PHP's own assumption, docs/format/indexes.md §11.5):
//
//   - one group with one condition `f eq v` or `f in [v...]`, f an equality
//     (or unique) field, every operand a scalar or null: the sum of the
//     stored counts over the ===-distinct operands (a float zero counts the
//     entries of both 0.0 and -0.0, whose keys differ although 0.0 === -0.0);
//   - one group of exactly two `eq` conditions on two different equality
//     fields with scalar operands: the compound entry's stored count (both
//     zeros again for float zero operands), when the source has one.
//
// Arrays are never indexed and can equal an array operand, ranges and
// every other shape are left to the record path. ok=false: not answered.
func (b *Builder) indexCount() (n int, ok bool, err error) {
	ic, isCounter := b.src.(IndexCounter)
	ix, isIndexed := b.src.(Indexed)
	if !isCounter || !isIndexed || b.hasCur || len(b.groups) != 1 {
		return 0, false, nil
	}
	g := b.groups[0]
	switch {
	case len(g) == 1 && (g[0].Op == "eq" || g[0].Op == "in"):
		return countValues(ic, ix, g[0])
	case len(g) == 2 && g[0].Op == "eq" && g[1].Op == "eq":
		return countCompound(ic, ix, g[0], g[1])
	}
	return 0, false, nil
}

// equalityField reports whether field has a non-range definition.
func equalityField(ix Indexed, field string) bool {
	if field == "id" {
		return false
	}
	_, rng, ok := ix.Definition(field)
	return ok && !rng
}

func countValues(ic IndexCounter, ix Indexed, c Condition) (int, bool, error) {
	if !equalityField(ix, c.Field) {
		return 0, false, nil
	}
	operands := []phpjson.Value{c.Value}
	if c.Op == "in" {
		list, _ := c.Value.(*phpjson.Array)
		operands = distinctScalars(list.Values())
	}
	total := int64(0)
	for _, v := range operands {
		if !isScalar(v) {
			return 0, false, nil
		}
		for _, lv := range zeroVariants(v) {
			n, indexed, err := ic.EqualityCount(c.Field, lv)
			if err != nil || !indexed {
				return 0, false, err
			}
			total = addCount(total, n)
		}
	}
	return clampCount(total), true, nil
}

func countCompound(ic IndexCounter, ix Indexed, c1, c2 Condition) (int, bool, error) {
	if c1.Field == c2.Field || !equalityField(ix, c1.Field) || !equalityField(ix, c2.Field) ||
		!isScalar(c1.Value) || !isScalar(c2.Value) {
		return 0, false, nil
	}
	total := int64(0)
	for _, v1 := range zeroVariants(c1.Value) {
		for _, v2 := range zeroVariants(c2.Value) {
			n, indexed, err := ic.CompoundCount(c1.Field, v1, c2.Field, v2)
			if err != nil || !indexed {
				return 0, false, err
			}
			total = addCount(total, n)
		}
	}
	return clampCount(total), true, nil
}

// isScalar reports whether v is null, bool, int, float or string.
func isScalar(v phpjson.Value) bool {
	switch v.(type) {
	case nil, bool, int64, float64, string:
		return true
	}
	return false
}

// zeroVariants is the stored values === v can match: both zeros for a
// float zero (their index keys differ), else v itself.
func zeroVariants(v phpjson.Value) []phpjson.Value {
	if f, ok := v.(float64); ok && f == 0 {
		return []phpjson.Value{0.0, math.Copysign(0, -1)}
	}
	return []phpjson.Value{v}
}

// distinctScalars drops every value === an earlier one (an `in` list
// matches a record once however often its value is listed). A float zero
// is kept once for both zeros. Non-scalars are kept (the caller refuses
// them).
func distinctScalars(vals []phpjson.Value) []phpjson.Value {
	out := make([]phpjson.Value, 0, len(vals))
	for _, v := range vals {
		dup := false
		for _, seen := range out {
			if isScalar(v) && phpjson.Identical(seen, v) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	return out
}

func addCount(total, n int64) int64 {
	if n > math.MaxInt64-total {
		return math.MaxInt64
	}
	return total + n
}

func clampCount(n int64) int { return int(min(n, math.MaxInt)) }
