package query

import (
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/internal/conformance"
)

func TestApplyStepsShapes(t *testing.T) {
	bad := []string{
		`[1]`,
		`[{}]`,
		`[{"where":["v","eq",1],"limit":2}]`,
		`[{"where":"v"}]`,
		`[{"where":["v"]}]`,
		`[{"where":[1,"eq",1]}]`,
		`[{"orderBy":[]}]`,
		`[{"orderBy":["v","asc","x"]}]`,
		`[{"orderBy":["v",1]}]`,
		`[{"limit":"2"}]`,
		`[{"limit":2.0}]`,
		`[{"cursor":1}]`,
		`[{"andWhere":{"where":["v","eq",1]}}]`,
		`[{"orWhere":[{"where":"x"}]}]`,
		`[{"select":["v"]}]`,
	}
	plain, _ := fixtures(t)
	for _, s := range bad {
		if _, err := conformance.ApplySteps(New(plain), val(t, s).(*phpjson.Array)); err == nil {
			t.Errorf("%s: no error", s)
		}
	}
	// PHP argument errors are kept for the terminal call, with PHP's text.
	b, err := conformance.ApplySteps(New(plain), val(t, `[{"limit":-5},{"where":["v","eq",1]}]`).(*phpjson.Array))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(); err == nil || err.Error() != "Query limit must be at least 1." {
		t.Errorf("err = %v", err)
	}
	// A huge limit is legal.
	b, _ = conformance.ApplySteps(New(plain), val(t, `[{"limit":9223372036854775807}]`).(*phpjson.Array))
	if n, err := b.Count(); err != nil || n != 16 {
		t.Errorf("count = %d, %v", n, err)
	}
	// nil steps leave the builder as is.
	if got, err := conformance.ApplySteps(New(plain), nil); err != nil || got == nil {
		t.Errorf("nil steps: %v", err)
	}
}

// FuzzApplySteps: arbitrary build lists must never panic, and with the
// index twin they must give the scan's results.
func FuzzApplySteps(f *testing.F) {
	for _, s := range []string{
		`[{"where":["kind","eq","page"]}]`,
		`[{"where":["v","gt",5]},{"orderBy":["v","desc"]},{"limit":2}]`,
		`[{"where":["kind","eq","post"]},{"andWhere":[{"where":["tag","eq","x"]},{"orWhere":[{"where":["tag","eq","z"]}]}]}]`,
		`[{"orWhere":[{"where":["kind","eq","note"]}]}]`,
		`[{"where":["v","between",[1],{"a":1}]},{"cursor":"018f8be0-0001-7000-8000-000000000003"}]`,
		`[{"where":["v","in",[0.0,"abc",[1]]]},{"page":3}]`,
		`[{"where":["name","prefix","al"]},{"where":["v","lte","zzz"]}]`,
		`[{"where":["id","in",["018f8be0-0001-7000-8000-000000000002",5]]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := phpjson.Decode(in)
		if err != nil {
			return
		}
		steps, ok := v.(*phpjson.Array)
		if !ok {
			return
		}
		plain, ix := fixtures(t)
		bp, errP := conformance.ApplySteps(New(plain), steps)
		bi, errI := conformance.ApplySteps(New(ix), steps)
		if (errP == nil) != (errI == nil) {
			t.Fatalf("build errors differ: %v / %v", errP, errI)
		}
		if errP != nil {
			return
		}
		gp, errP := bp.Get()
		gi, errI := bi.Get()
		if (errP == nil) != (errI == nil) {
			t.Fatalf("get errors differ: %v / %v", errP, errI)
		}
		if errP == nil && string(mustEncode(t, recordsValue(gp))) != string(mustEncode(t, recordsValue(gi))) {
			t.Fatalf("index twin differs from scan:\n%v\n%v", recIDs(gp), recIDs(gi))
		}
		_, _ = bp.Count()
		_, _ = bi.First()
		_, _ = bi.Explain()
	})
}

func recordsValue(recs []Record) *phpjson.Array {
	list := phpjson.NewArray(len(recs))
	for _, r := range recs {
		list.Append(recordValue(r))
	}
	return list
}
