package conformance

import (
	"fmt"

	"github.com/storhfs/storhfs/core/phpjson"
)

// StepBuilder is the building half of an engine's query builder
// (core/query.Builder), which the "build" steps of a query op call.
type StepBuilder[B any] interface {
	Where(field, op string, operands ...phpjson.Value) B
	AndWhere(fn func(B) B) B
	OrWhere(fn func(B) B) B
	OrderBy(field, dir string) B
	Limit(n int) B
	Cursor(id string) B
}

// ApplySteps applies a conformance "build" list (corpus README 4.6) to b:
// single-key objects {"where": [field, op, operands...]},
// {"andWhere": [steps...]}, {"orWhere": [steps...]}, {"orderBy": [field]} or
// {"orderBy": [field, dir]}, {"limit": n}, {"page": n}, {"cursor": id}.
// Errors PHP would throw while building stay in the returned builder (see
// core/query.Builder); the error result is only for steps of the wrong
// shape.
func ApplySteps[B StepBuilder[B]](b B, steps *phpjson.Array) (B, error) {
	if steps == nil {
		return b, nil
	}
	for i, raw := range steps.Values() {
		step, ok := raw.(*phpjson.Array)
		if !ok || step.Len() != 1 {
			return b, fmt.Errorf("query step %d: want an object with one member", i)
		}
		key, arg := step.At(0)
		next, err := applyStep(b, key.String(), arg)
		if err != nil {
			return b, fmt.Errorf("query step %d (%s): %w", i, key.String(), err)
		}
		b = next
	}
	return b, nil
}

func applyStep[B StepBuilder[B]](b B, name string, arg phpjson.Value) (B, error) {
	switch name {
	case "where":
		args, ok := arg.(*phpjson.Array)
		if !ok || args.Len() < 2 {
			return b, fmt.Errorf("want [field, op, operands...]")
		}
		vals := args.Values()
		field, fok := vals[0].(string)
		op, ook := vals[1].(string)
		if !fok || !ook {
			return b, fmt.Errorf("field and operator must be strings")
		}
		return b.Where(field, op, vals[2:]...), nil
	case "andWhere", "orWhere":
		sub, ok := arg.(*phpjson.Array)
		if !ok {
			return b, fmt.Errorf("want a list of steps")
		}
		var subErr error
		branch := func(q B) B {
			q, subErr = ApplySteps(q, sub)
			return q
		}
		var next B
		if name == "andWhere" {
			next = b.AndWhere(branch)
		} else {
			next = b.OrWhere(branch)
		}
		if subErr != nil {
			return b, subErr
		}
		return next, nil
	case "orderBy":
		args, ok := arg.(*phpjson.Array)
		if !ok || args.Len() < 1 || args.Len() > 2 {
			return b, fmt.Errorf("want [field] or [field, direction]")
		}
		vals := args.Values()
		field, fok := vals[0].(string)
		dir := "asc"
		dok := true
		if len(vals) == 2 {
			dir, dok = vals[1].(string)
		}
		if !fok || !dok {
			return b, fmt.Errorf("field and direction must be strings")
		}
		return b.OrderBy(field, dir), nil
	case "limit", "page":
		n, ok := arg.(int64)
		if !ok {
			return b, fmt.Errorf("want an int")
		}
		if n < 1 {
			return b.Limit(0), nil // "Query limit must be at least 1."
		}
		if n > int64(maxInt) {
			n = int64(maxInt)
		}
		return b.Limit(int(n)), nil
	case "cursor":
		id, ok := arg.(string)
		if !ok {
			return b, fmt.Errorf("want a string id")
		}
		return b.Cursor(id), nil
	}
	return b, fmt.Errorf("unknown step")
}

const maxInt = int(^uint(0) >> 1)
