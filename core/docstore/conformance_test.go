package docstore

import (
	"errors"
	"fmt"
	"testing"

	"storhfs/core/conformance"
	"storhfs/core/docindex"
	"storhfs/core/phpjson"
	"storhfs/core/query"
)

// allowedQuirks are the README section 8 tags whose PHP result we do not
// promise to reproduce (our index paths only narrow candidates; the scan
// twin is the contract).
var allowedQuirks = []string{"index-path"}

func TestConformance(t *testing.T) {
	t.Run("doc", func(t *testing.T) {
		conformance.Run(t, "doc", newDocExecutor, conformance.Options{AllowQuirks: allowedQuirks})
	})
}

// docExecutor runs the doc ops of corpus README 4.2.
type docExecutor struct {
	root   string
	stores map[string]*Store
}

func newDocExecutor(root string) conformance.Executor {
	return &docExecutor{root: root, stores: map[string]*Store{}}
}

func (x *docExecutor) CloseAll() {
	for name, s := range x.stores {
		_ = s.Close()
		delete(x.stores, name)
	}
}

func (x *docExecutor) Exec(op *phpjson.Array, env *conformance.Env) (phpjson.Value, error) {
	name := str(op, "op")
	coll := str(op, "collection")
	if name == "open" {
		return nil, x.open(coll, op)
	}
	s, ok := x.stores[coll]
	if !ok {
		return nil, fmt.Errorf("executor: collection %q is not open", coll)
	}
	switch name {
	case "close":
		delete(x.stores, coll)
		return nil, s.Close()
	case "put":
		data, _ := member(op, "data").(*phpjson.Array)
		rec, err := s.Put(data, str(op, "id"))
		if err != nil {
			return nil, err
		}
		return recordValue(rec), nil
	case "putMany":
		recs, err := s.PutMany(list(op, "rows"))
		if err != nil {
			return nil, err
		}
		out := phpjson.NewArray(len(recs))
		for _, r := range recs {
			out.Append(recordValue(r))
		}
		return out, nil
	case "putStream":
		rows := list(op, "rows")
		i := 0
		n, err := s.PutStream(func() (phpjson.Value, bool, error) {
			if i >= len(rows) {
				return nil, false, nil
			}
			i++
			return rows[i-1], true, nil
		})
		if err != nil {
			return nil, err
		}
		return int64(n), nil
	case "get":
		rec, err := s.Get(str(op, "id"))
		if err != nil || rec == nil {
			return nil, err
		}
		return recordValue(*rec), nil
	case "delete":
		return nil, s.Delete(str(op, "id"))
	case "stream":
		return x.stream(s, op)
	case "query":
		return x.query(s, op)
	case "indexes":
		return nil, x.indexes(s, op)
	case "reindex":
		return s.Reindex()
	case "stats":
		return s.Stats()
	case "verify":
		return s.Verify()
	case "health":
		return s.Health()
	case "repair":
		return s.Repair()
	case "compact":
		return s.Compact()
	case "importJsonl":
		n, err := s.ImportJSONL(x.root + "/" + str(op, "path"))
		if err != nil {
			return nil, err
		}
		return int64(n), nil
	case "exportJsonl":
		n, err := s.ExportJSONL(x.root + "/" + str(op, "path"))
		if err != nil {
			return nil, err
		}
		return int64(n), nil
	}
	return nil, fmt.Errorf("executor: unknown doc op %q", name)
}

func (x *docExecutor) open(coll string, op *phpjson.Array) error {
	if _, ok := x.stores[coll]; ok {
		return fmt.Errorf("executor: collection %q is already open", coll)
	}
	var opts Options
	if seq := list(op, "id_sequence"); seq != nil {
		next := 0
		opts.IDs = func() (string, error) {
			if next >= len(seq) {
				return "", errors.New("executor: id_sequence exhausted")
			}
			next++
			id, _ := seq[next-1].(string)
			return id, nil
		}
	}
	s, err := Open(x.root, coll, opts)
	if err != nil {
		return err
	}
	x.stores[coll] = s
	return nil
}

// stream builds the RecordQuery in README 4.5 order (each call may throw)
// and shapes the result: list, {"records","skipped"} or {"error","partial"}.
func (x *docExecutor) stream(s *Store, op *phpjson.Array) (phpjson.Value, error) {
	var q RecordQuery
	qa, _ := member(op, "query").(*phpjson.Array)
	var skipped *phpjson.Array
	if qa != nil {
		if v, ok := qa.Lookup("after"); ok {
			id, _ := v.(string)
			if err := q.SetAfter(id); err != nil {
				return nil, err
			}
		}
		from, hasFrom := qa.Lookup("from_ms")
		until, hasUntil := qa.Lookup("until_ms")
		if hasFrom || hasUntil {
			q.FromMs, q.UntilMs = intPtr(from), intPtr(until)
		}
		if v, ok := qa.Lookup("where_equal"); ok {
			pairs, _ := v.(*phpjson.Array)
			for _, p := range pairs.Values() {
				pair := p.(*phpjson.Array)
				field, _ := pair.Values()[0].(string)
				if err := q.AddWhereEqual(field, pair.Values()[1]); err != nil {
					return nil, err
				}
			}
		}
		if v, ok := qa.Lookup("limit"); ok {
			n, _ := v.(int64)
			if err := q.SetLimit(int(n)); err != nil {
				return nil, err
			}
		}
		if v, ok := qa.Lookup("continue_on_error"); ok && v == true {
			skipped = phpjson.NewArray(0)
			q.OnError = func(key string, err error) {
				item := phpjson.NewArray(2)
				item.SetString("key", key)
				item.SetString("error", err.Error())
				skipped.Append(item)
			}
		}
	}
	records := phpjson.NewArray(0)
	err := s.Stream(q, func(r Record) error {
		records.Append(recordValue(r))
		return nil
	})
	if err != nil {
		out := phpjson.NewArray(2)
		out.SetString("error", err.Error())
		out.SetString("partial", records)
		return out, nil
	}
	if skipped != nil {
		out := phpjson.NewArray(2)
		out.SetString("records", records)
		out.SetString("skipped", skipped)
		return out, nil
	}
	return records, nil
}

func (x *docExecutor) query(s *Store, op *phpjson.Array) (phpjson.Value, error) {
	steps, _ := member(op, "build").(*phpjson.Array)
	b, err := query.ApplySteps(s.Query(), steps)
	if err != nil {
		return nil, err
	}
	switch call := str(op, "call"); call {
	case "get":
		recs, err := b.Get()
		if err != nil {
			return nil, err
		}
		out := phpjson.NewArray(len(recs))
		for _, r := range recs {
			out.Append(recordValue(Record{ID: r.ID, Data: r.Data}))
		}
		return out, nil
	case "first":
		r, err := b.First()
		if err != nil || r == nil {
			return nil, err
		}
		return recordValue(Record{ID: r.ID, Data: r.Data}), nil
	case "count":
		n, err := b.Count()
		if err != nil {
			return nil, err
		}
		return int64(n), nil
	case "explain":
		return b.Explain()
	default:
		return nil, fmt.Errorf("executor: unknown query call %q", call)
	}
}

func (x *docExecutor) indexes(s *Store, op *phpjson.Array) error {
	var defs []docindex.Definition
	for _, f := range list(op, "fields") {
		fa := f.(*phpjson.Array)
		d := docindex.Definition{Field: str(fa, "field")}
		d.Unique = member(fa, "unique") == true
		d.Range = member(fa, "range") == true
		defs = append(defs, d)
	}
	rebuild := true
	if v, ok := op.Lookup("rebuild"); ok {
		rebuild = v == true
	}
	return s.SyncIndexes(defs, rebuild)
}

func recordValue(r Record) *phpjson.Array {
	a := phpjson.NewArray(2)
	a.SetString("id", r.ID)
	data := r.Data
	if data == nil {
		data = phpjson.NewArray(0)
	}
	a.SetString("data", data)
	return a
}

func member(a *phpjson.Array, name string) phpjson.Value {
	v, _ := a.Lookup(name)
	return v
}

func str(a *phpjson.Array, name string) string {
	s, _ := member(a, name).(string)
	return s
}

func list(a *phpjson.Array, name string) []phpjson.Value {
	l, ok := member(a, name).(*phpjson.Array)
	if !ok {
		return nil
	}
	return l.Values()
}

func intPtr(v phpjson.Value) *int64 {
	n, ok := v.(int64)
	if !ok {
		return nil
	}
	return &n
}
