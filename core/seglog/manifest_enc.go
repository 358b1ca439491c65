package seglog

import "storhfs/core/phpjson"

// manifestEncoder renders manifest documents exactly as encodeManifest
// does, reusing the JSON of the "sealed" entries it rendered before: a
// roll only appends an entry, and re-encoding the whole, ever longer list
// at every roll makes a bulk append quadratic in its segment count.
//
// Invariant: json is the comma-separated encoding of list's first n
// entries. It holds because the cache is keyed by the list object and the
// log never modifies an entry of a list once it is encoded: entries are
// only appended (roll), whole lists replaced (compaction) or re-read from
// disk as new objects (refresh, recovery).
type manifestEncoder struct {
	list *phpjson.Array
	n    int
	json []byte
	out  []byte // the last document returned by encode's fast path
}

func (e *manifestEncoder) reset() { e.list, e.n, e.json = nil, 0, e.json[:0] }

// encode is encodeManifest(doc). The result is valid until the next call
// (the fast path reuses its buffer: a roll's manifest is written before
// the next roll encodes). The fast path needs a document with only
// string keys and a "sealed" list of flat entries (scalar values only, so
// that each encodes alone exactly as it does nested); anything else is
// encoded in full.
func (e *manifestEncoder) encode(doc *phpjson.Array) ([]byte, error) {
	v, _ := doc.Lookup("sealed")
	list, ok := v.(*phpjson.Array)
	if !ok || !list.IsList() || !stringKeysOnly(doc) {
		e.reset()
		return encodeManifest(doc)
	}
	if e.list != list || e.n > list.Len() {
		e.reset()
		e.list = list
	}
	vals := list.Values()
	for e.n < len(vals) {
		entry, ok := vals[e.n].(*phpjson.Array)
		if !ok || !flatArray(entry) {
			e.reset()
			return encodeManifest(doc)
		}
		if e.n > 0 {
			e.json = append(e.json, ',')
		}
		var err error
		if e.json, err = appendJSON(e.json, entry); err != nil {
			e.reset()
			return nil, err
		}
		e.n++
	}
	out := append(e.out[:0], '{')
	keys, members := doc.Keys(), doc.Values()
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = phpjson.AppendString(out, k.String()); err != nil {
			return nil, err
		}
		out = append(out, ':')
		if m, ok := members[i].(*phpjson.Array); ok && m == list {
			out = append(out, '[')
			out = append(out, e.json...)
			out = append(out, ']')
			continue
		}
		if out, err = appendJSON(out, members[i]); err != nil {
			return nil, err
		}
	}
	e.out = append(out, '}', '\n')
	return e.out, nil
}

// stringKeysOnly reports whether a is non-empty and every key is a string
// (so it encodes as a JSON object).
func stringKeysOnly(a *phpjson.Array) bool {
	if a.Len() == 0 {
		return false
	}
	for _, k := range a.Keys() {
		if k.IsInt() {
			return false
		}
	}
	return true
}

// flatArray reports whether every value of a is a scalar or null.
func flatArray(a *phpjson.Array) bool {
	for _, v := range a.Values() {
		if _, nested := v.(*phpjson.Array); nested {
			return false
		}
	}
	return true
}
