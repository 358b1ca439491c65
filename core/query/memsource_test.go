package query

import (
	"encoding/hex"
	"math"
	"sort"
	"strconv"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// memSource is an in-memory Source: records scanned in ascending id order
// (like DocStore) unless order is set (like SegmentedLog's stream order).
type memSource struct {
	class string
	recs  map[string]*phpjson.Array
	order []string // explicit scan order; nil = ascending id
	// logOrder: put moves the id to the end of order (SegmentedLog streams
	// a record at the position of its latest put).
	logOrder bool

	scanned, gets int // records visited by Scan, calls of Get
}

func newMemSource() *memSource {
	return &memSource{class: "Storh\\DocPerFileStore", recs: map[string]*phpjson.Array{}}
}

func (m *memSource) put(id string, data *phpjson.Array) {
	if m.logOrder {
		m.remove(id)
		m.order = append(m.order, id)
	}
	m.recs[id] = data
}

func (m *memSource) remove(id string) {
	delete(m.recs, id)
	for i, o := range m.order {
		if o == id {
			m.order = append(m.order[:i:i], m.order[i+1:]...)
			break
		}
	}
}

func (m *memSource) StoreClass() string { return m.class }

func (m *memSource) ids() []string {
	if m.order != nil {
		return m.order
	}
	ids := make([]string, 0, len(m.recs))
	for id := range m.recs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (m *memSource) Scan(fn func(Record) error) error {
	for _, id := range m.ids() {
		m.scanned++
		if err := fn(Record{ID: id, Data: m.recs[id]}); err != nil {
			if err == ErrStop {
				return nil
			}
			return err
		}
	}
	return nil
}

func (m *memSource) Get(id string) (*Record, error) {
	m.gets++
	if !uuidv7.Valid(id) {
		return nil, ErrInvalidID // as DocStore and SegmentedLog get()
	}
	d, ok := m.recs[id]
	if !ok {
		return nil, nil
	}
	return &Record{ID: id, Data: d}, nil
}

// memIndexed adds fake secondary indexes computed from the records on
// every lookup. Its keys mimic docindex where the engine relies on them:
// VK differs for 0.0 and -0.0, RK of a string is "s-"+hex, and arrays are
// never indexed.
type memIndexed struct {
	*memSource
	defs map[string][2]bool // field -> {unique, range}

	lookups int
}

func newMemIndexed() *memIndexed {
	return &memIndexed{memSource: newMemSource(), defs: map[string][2]bool{}}
}

func (m *memIndexed) define(field string, unique, rng bool) { m.defs[field] = [2]bool{unique, rng} }

func (m *memIndexed) Definition(field string) (bool, bool, bool) {
	d, ok := m.defs[field]
	return d[0], d[1], ok
}

func indexable(v phpjson.Value) bool {
	_, isArr := v.(*phpjson.Array)
	return !isArr
}

func fakeVK(v phpjson.Value) string {
	switch x := v.(type) {
	case nil:
		return "n"
	case bool:
		if x {
			return "b-1"
		}
		return "b-0"
	case int64:
		return "i-" + strconv.FormatInt(x, 10)
	case float64:
		if x == 0 && math.Signbit(x) {
			return "f-m0"
		}
		return "f-" + strconv.FormatFloat(x, 'g', 17, 64)
	case string:
		return "s-" + hex.EncodeToString([]byte(x))
	}
	return "z-array"
}

func (m *memIndexed) RangeKey(v phpjson.Value) string {
	switch x := v.(type) {
	case int64:
		return "n-" + strconv.FormatFloat(float64(x), 'g', -1, 64)
	case float64:
		if x == 0 {
			x = 0
		}
		return "n-" + strconv.FormatFloat(math.Abs(x)*sign(x), 'g', -1, 64)
	case string:
		return "s-" + hex.EncodeToString([]byte(x))
	}
	return fakeVK(v) // bools, null
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

func (m *memIndexed) EqualityIDs(field string, v phpjson.Value) ([]string, bool, error) {
	m.lookups++
	d, ok := m.defs[field]
	if !ok || d[1] {
		return nil, false, nil
	}
	want := fakeVK(v)
	var ids []string
	for _, id := range m.memSource.ids() {
		if x, ok := m.recs[id].Lookup(field); ok && indexable(x) && fakeVK(x) == want {
			ids = append(ids, id)
		}
	}
	return ids, true, nil
}

func (m *memIndexed) RangeScan(field, from, to string, fn func(string, phpjson.Value, []string) error) (bool, error) {
	m.lookups++
	d, ok := m.defs[field]
	if !ok || !d[1] {
		return false, nil
	}
	type line struct {
		key string
		val phpjson.Value
		id  string
	}
	var lines []line
	for _, id := range m.memSource.ids() {
		if x, ok := m.recs[id].Lookup(field); ok && indexable(x) {
			lines = append(lines, line{m.RangeKey(x), x, id})
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].key < lines[j].key })
	for _, l := range lines {
		if (from != "" && l.key < from) || (to != "" && l.key > to) {
			continue
		}
		if err := fn(l.key, l.val, []string{l.id}); err != nil {
			return true, err
		}
	}
	return true, nil
}

var _ Indexed = (*memIndexed)(nil)

// GetEach is Get per id, in order.
func (m *memIndexed) GetEach(ids []string, fn func(string, *Record) error) error {
	for _, id := range ids {
		var rec *Record
		if uuidv7.Valid(id) {
			var err error
			if rec, err = m.Get(id); err != nil {
				return err
			}
		}
		if err := fn(id, rec); err != nil {
			if err == ErrStop {
				return nil
			}
			return err
		}
	}
	return nil
}
