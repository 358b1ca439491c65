package query

import "github.com/storhfs/storhfs/core/phpjson"

// rangeOperators are the operators a range definition serves (docs/format/docstore.md §8.6).
var rangeOperators = map[string]bool{
	"gt": true, "gte": true, "lt": true, "lte": true, "between": true, "prefix": true,
}

// Explain is PHP explain() (docs/format/docstore.md §8.6):
// {"store": <class>, "plan": "index_scan"|"full_scan", "indexes": [...], "groups": n}.
// For each group the first condition whose field has a definition and whose
// operator is eq/in, or a range operator on a range field, is listed as
// {"field", "operator"}. It is a hint: execution may still scan. A Source
// without Indexed (SegmentedLog) always reports full_scan.
func (b *Builder) Explain() (*phpjson.Array, error) {
	if b.err != nil {
		return nil, b.err
	}
	listed := phpjson.NewArray(len(b.groups))
	if ix, ok := b.src.(Indexed); ok {
		for _, g := range b.groups {
			for _, c := range g {
				_, rng, defined := ix.Definition(c.Field)
				if !defined {
					continue
				}
				if c.Op == "eq" || c.Op == "in" || (rng && rangeOperators[c.Op]) {
					entry := phpjson.NewArray(2)
					entry.SetString("field", c.Field)
					entry.SetString("operator", c.Op)
					listed.Append(entry)
					break
				}
			}
		}
	}
	plan := "full_scan"
	if listed.Len() > 0 {
		plan = "index_scan"
	}
	out := phpjson.NewArray(4)
	out.SetString("store", b.src.StoreClass())
	out.SetString("plan", plan)
	out.SetString("indexes", listed)
	out.SetString("groups", int64(len(b.groups)))
	return out, nil
}
