package docindex

import (
	"strconv"
	"strings"
)

// IndexKind is the kind of one index as a drift report names it.
type IndexKind string

const (
	KindEquality IndexKind = "equality"
	KindUnique   IndexKind = "unique"
	KindRange    IndexKind = "range"
	KindCompound IndexKind = "compound" // automatic pair of two equality fields
)

// IndexRef names one index of a collection: a definition's field, or for
// a compound index its left and right fields (bytewise order, docs/format/indexes.md §7).
type IndexRef struct {
	Kind  IndexKind
	Field string
	Right string // compound only
}

func (r IndexRef) String() string {
	if r.Kind == KindCompound {
		return "compound index " + strconv.Quote(r.Field) + "+" + strconv.Quote(r.Right)
	}
	return string(r.Kind) + " index " + strconv.Quote(r.Field)
}

// Drift is what Verify found wrong in one index.
type Drift struct {
	Index IndexRef
	// Entries is how many entries (equality or compound files, range
	// keys) hold other ids than the records say.
	Entries int
	// Missing ids are owed by a record's value but absent from the index;
	// Extra ids are in the index without a record holding that value.
	Missing, Extra int
	// Broken counts unreadable or malformed files and lines.
	Broken int
}

func (d Drift) String() string {
	s := d.Index.String() + ": " + strconv.Itoa(d.Entries) + " entries differ from the records (" +
		strconv.Itoa(d.Missing) + " ids missing, " + strconv.Itoa(d.Extra) + " extra)"
	if d.Broken > 0 {
		s += ", " + strconv.Itoa(d.Broken) + " unreadable or malformed files or lines"
	}
	return s
}

// driftTally collects Drift per index in verify order (equality and
// unique, range, compound), the order of VerifyReport.Drift.
type driftTally struct {
	order []IndexRef
	by    map[IndexRef]*Drift
}

func newDriftTally(defs []Definition) *driftTally {
	t := &driftTally{by: map[IndexRef]*Drift{}}
	for _, d := range defs {
		if !d.Range {
			kind := KindEquality
			if d.Unique {
				kind = KindUnique
			}
			t.add(IndexRef{Kind: kind, Field: d.Field})
		}
	}
	for _, d := range defs {
		if d.Range {
			t.add(IndexRef{Kind: KindRange, Field: d.Field})
		}
	}
	for _, p := range compoundPairs(defs) {
		t.add(IndexRef{Kind: KindCompound, Field: p[0], Right: p[1]})
	}
	return t
}

func (t *driftTally) add(ref IndexRef) {
	t.order = append(t.order, ref)
	t.by[ref] = &Drift{Index: ref}
}

// equality returns the entry of an equality or unique field.
func (t *driftTally) equality(field string) *Drift {
	if d := t.by[IndexRef{Kind: KindEquality, Field: field}]; d != nil {
		return d
	}
	return t.by[IndexRef{Kind: KindUnique, Field: field}]
}

// forIdentity returns the entry of a mismatched identity of verify's label
// ("equality" f\0VK, "range" f\0RK\0VK, "compound" L\tR\0CK); keys never
// contain \0, field names might, so the field is cut from the right.
func (t *driftTally) forIdentity(label, identity string) *Drift {
	cut := strings.LastIndexByte(identity, 0)
	if cut < 0 {
		return nil
	}
	field := identity[:cut]
	switch label {
	case "equality":
		return t.equality(field)
	case "range":
		if cut = strings.LastIndexByte(field, 0); cut < 0 {
			return nil
		}
		return t.by[IndexRef{Kind: KindRange, Field: field[:cut]}]
	case "compound":
		left, right, _ := strings.Cut(field, "\t")
		return t.by[IndexRef{Kind: KindCompound, Field: left, Right: right}]
	}
	return nil
}

// mismatch counts one entry whose id sets differ.
func (d *Drift) mismatch(expected, actual idSet) {
	d.Entries++
	for id := range expected {
		if _, ok := actual[id]; !ok {
			d.Missing++
		}
	}
	for id := range actual {
		if _, ok := expected[id]; !ok {
			d.Extra++
		}
	}
}

// drifted lists the indexes with any problem, in verify order.
func (t *driftTally) drifted() []Drift {
	var out []Drift
	for _, ref := range t.order {
		if d := t.by[ref]; d.Entries > 0 || d.Broken > 0 {
			out = append(out, *d)
		}
	}
	return out
}
