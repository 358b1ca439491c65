package docstore

import (
	"errors"
	"fmt"
	"testing"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/query"
	"github.com/storhfs/storhfs/internal/conformance"
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
	root string
	conformance.Stores[*Store]
}

func newDocExecutor(root string) conformance.Executor {
	return &docExecutor{root: root}
}

func (x *docExecutor) Exec(op *phpjson.Array, _ *conformance.Env) (phpjson.Value, error) {
	return x.Dispatch(op, x.open, x.run)
}

func (x *docExecutor) open(coll string, op *phpjson.Array) (*Store, error) {
	return Open(x.root, coll, Options{IDs: conformance.IDSequence(op)})
}

func (x *docExecutor) run(s *Store, name string, op *phpjson.Array) (phpjson.Value, error) {
	switch name {
	case "put":
		rec, err := s.Put(conformance.OpArray(op, "data"), conformance.OpString(op, "id"))
		return conformance.Result(rec, err, recordValue)
	case "putMany":
		recs, err := s.PutMany(conformance.OpList(op, "rows"))
		return conformance.ListResult(recs, err, recordValue)
	case "putStream":
		return conformance.IntResult(s.PutStream(conformance.RowFeed(conformance.OpList(op, "rows"))))
	case "get":
		rec, err := s.Get(conformance.OpString(op, "id"))
		return conformance.NullableResult(rec, err, recordValue)
	case "delete":
		return nil, s.Delete(conformance.OpString(op, "id"))
	case "stream":
		var q RecordQuery
		return conformance.Stream(op, docStreamQuery{&q}, func(emit conformance.Emit) error {
			return s.Stream(q, func(r Record) error { emit(r.ID, r.Data); return nil })
		})
	case "query":
		return conformance.QueryOp(op, s.Query(), conformance.ApplySteps[*query.Builder], queryRecordValue)
	case "indexes":
		defs, err := indexDefinitions(op)
		if err != nil {
			return nil, err
		}
		return nil, s.SyncIndexes(defs, rebuildIndexes(op))
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
		return conformance.IntResult(s.ImportJSONL(x.root + "/" + conformance.OpString(op, "path")))
	case "exportJsonl":
		return conformance.IntResult(s.ExportJSONL(x.root + "/" + conformance.OpString(op, "path")))
	}
	return nil, fmt.Errorf("executor: unknown doc op %q", name)
}

// docStreamQuery is RecordQuery as the harness's StreamQuery (README 4.5);
// its methods shadow RecordQuery's After and Limit fields.
type docStreamQuery struct{ *RecordQuery }

func (q docStreamQuery) After(id string) error { return q.SetAfter(id) }

func (q docStreamQuery) TimeRangeMs(fromMs, untilMs *int64) error {
	q.FromMs, q.UntilMs = fromMs, untilMs
	return nil
}

func (q docStreamQuery) WhereEqual(field string, value phpjson.Value) error {
	return q.AddWhereEqual(field, value)
}

func (q docStreamQuery) Limit(n int) error { return q.SetLimit(n) }

func (q docStreamQuery) ContinueOnError(skip func(key string, err error)) { q.OnError = skip }

// indexDefinitions are the "fields" of an indexes op:
// {"field", "unique"?, "range"?} each.
func indexDefinitions(op *phpjson.Array) ([]docindex.Definition, error) {
	var defs []docindex.Definition
	for _, f := range conformance.OpList(op, "fields") {
		fa, ok := f.(*phpjson.Array)
		if !ok {
			return nil, errors.New(`executor: indexes "fields" entries must be objects`)
		}
		defs = append(defs, docindex.Definition{
			Field:  conformance.OpString(fa, "field"),
			Unique: conformance.OpValue(fa, "unique") == true,
			Range:  conformance.OpValue(fa, "range") == true,
		})
	}
	return defs, nil
}

// rebuildIndexes is an indexes op's "rebuild", default true.
func rebuildIndexes(op *phpjson.Array) bool {
	v, ok := op.Lookup("rebuild")
	return !ok || v == true
}

func recordValue(r Record) *phpjson.Array { return conformance.RecordValue(r.ID, r.Data) }

func queryRecordValue(r query.Record) *phpjson.Array { return conformance.RecordValue(r.ID, r.Data) }
