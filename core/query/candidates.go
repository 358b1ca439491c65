package query

import (
	"encoding/hex"
	"sort"

	"github.com/storhfs/storhfs/core/phpjson"
)

// Index use (docs/format/indexes.md §11.2): an index only ever
// proposes candidates, and every candidate is re-checked with the scan
// predicate. A condition is used only where its id set is a superset of the
// records it matches under 8.6, given that the index holds every record
// whose value it indexes (null, bool, int, float, string; never arrays):
//
//   - id eq / id in: the operand ids themselves;
//   - eq / in on an indexed field with scalar operands: equality entries
//     (both zeros for a float zero, whose VKs differ although 0.0 === -0.0)
//     or the range lines whose key equals RK(v);
//   - lt / lte with a string or number operand, between with a string or
//     number upper bound, on a range field: every range line whose value
//     passes the condition (arrays, which are never indexed, compare above
//     all strings and numbers, so they cannot match);
//   - prefix on a range field: the range lines of the "s-<hex prefix>" keys.
//
// gt/gte (array values may match), neq, notIn, exists, missing and array
// operands are left to the scan. PHP's own index paths are narrower (typed
// key windows, docs/format/indexes.md §11.4); their results are the scan's here.

// candidateIDs returns the ids, ascending bytewise without duplicates, of a
// superset of the records matching some group. usable=false when a group
// has no usable condition (then the whole query scans).
func candidateIDs(ix Indexed, groups [][]Condition) (ids []string, usable bool, err error) {
	var union []string
	for _, g := range groups {
		set, ok, err := groupCandidates(ix, g)
		if err != nil || !ok {
			return nil, false, err
		}
		if len(groups) == 1 {
			return set, true, nil
		}
		union = append(union, set...)
	}
	return sortedUnique(union), true, nil
}

// groupCandidates intersects the id sets of a group's usable conditions;
// the result is sorted and duplicate-free.
func groupCandidates(ix Indexed, g []Condition) ([]string, bool, error) {
	var set []string
	have := false
	for i := range g {
		ids, ok, err := conditionCandidates(ix, &g[i])
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		ids = sortedUnique(ids)
		if have {
			set = intersectSorted(set, ids)
		} else {
			set, have = ids, true
		}
		if len(set) == 0 {
			break
		}
	}
	return set, have, nil
}

// sortedUnique sorts ids bytewise and drops duplicates, in place; a list
// that is already strictly increasing (entry files are) is returned as is.
func sortedUnique(ids []string) []string {
	for i := 1; i < len(ids); i++ {
		if ids[i] < ids[i-1] {
			sort.Strings(ids)
			break
		}
	}
	out := ids[:0]
	for _, id := range ids {
		if len(out) == 0 || id != out[len(out)-1] {
			out = append(out, id)
		}
	}
	return out
}

// intersectSorted returns the ids in both sorted, duplicate-free lists.
func intersectSorted(a, b []string) []string {
	out := make([]string, 0, min(len(a), len(b)))
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// conditionCandidates returns a superset of the ids matching c, or
// usable=false.
func conditionCandidates(ix Indexed, c *Condition) (ids []string, usable bool, err error) {
	if c.Field == "id" {
		return idCandidates(c)
	}
	_, rng, ok := ix.Definition(c.Field)
	if !ok {
		return nil, false, nil
	}
	switch c.Op {
	case "eq":
		return valueCandidates(ix, c.Field, rng, []phpjson.Value{c.Value})
	case "in":
		list, _ := c.Value.(*phpjson.Array)
		if list == nil {
			return nil, true, nil // in_array on a non-array: nothing matches
		}
		return valueCandidates(ix, c.Field, rng, list.Values())
	case "lt", "lte":
		if rng && isStringOrNumber(c.Value) {
			return rangeCandidates(ix, c, "", "")
		}
	case "between":
		if rng && isStringOrNumber(c.Second) {
			return rangeCandidates(ix, c, "", "")
		}
	case "prefix":
		if p, ok := c.Value.(string); ok && rng {
			// Strings have RK "s-" + hex(bytes): every string with prefix p
			// has a key in [s-hex(p), s-hex(p)~] ('~' > every hex digit).
			from := "s-" + hex.EncodeToString([]byte(p))
			return rangeCandidates(ix, c, from, from+"~")
		}
	}
	return nil, false, nil
}

// idCandidates serves id eq/in from the operands: the id is a string, so
// only string operands can match.
func idCandidates(c *Condition) ([]string, bool, error) {
	switch c.Op {
	case "eq":
		if s, ok := c.Value.(string); ok {
			return []string{s}, true, nil
		}
		return nil, true, nil
	case "in":
		var ids []string
		if list, ok := c.Value.(*phpjson.Array); ok && list != nil {
			for _, v := range list.Values() {
				if s, ok := v.(string); ok {
					ids = append(ids, s)
				}
			}
		}
		return ids, true, nil
	}
	return nil, false, nil
}

// valueCandidates is the union of the ids stored for each value; an array
// value makes the condition unusable (arrays are never indexed).
func valueCandidates(ix Indexed, field string, rng bool, values []phpjson.Value) ([]string, bool, error) {
	var ids []string
	for _, v := range values {
		if _, isArr := v.(*phpjson.Array); isArr {
			return nil, false, nil
		}
		for _, lv := range zeroVariants(v) {
			var got []string
			var indexed bool
			var err error
			if rng {
				key := ix.RangeKey(lv)
				indexed, err = ix.RangeScan(field, key, key, func(_ string, value phpjson.Value, kids []string) error {
					if phpjson.Identical(value, lv) {
						got = append(got, kids...)
					}
					return nil
				})
			} else {
				got, indexed, err = ix.EqualityIDs(field, lv)
			}
			if err != nil || !indexed {
				return nil, false, err
			}
			ids = append(ids, got...)
		}
	}
	return ids, true, nil
}

// rangeCandidates collects the ids of the range lines with keys in
// [from, to] whose value passes c.
func rangeCandidates(ix Indexed, c *Condition, from, to string) ([]string, bool, error) {
	var ids []string
	indexed, err := ix.RangeScan(c.Field, from, to, func(_ string, value phpjson.Value, kids []string) error {
		ok, err := c.test(value, true)
		if ok {
			ids = append(ids, kids...)
		}
		return err
	})
	if err != nil || !indexed {
		return nil, false, err
	}
	return ids, true, nil
}

func isStringOrNumber(v phpjson.Value) bool {
	switch v.(type) {
	case string, int64, float64:
		return true
	}
	return false
}
