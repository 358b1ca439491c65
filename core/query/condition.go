package query

import (
	"strings"

	"github.com/storhfs/storhfs/core/phpjson"
)

// Condition is one where(field)->op(...) of a query (PHP QueryCondition).
// Value is the operand (for in/notIn a PHP list, for between the lower
// bound); Second is between's upper bound.
type Condition struct {
	Field  string
	Op     string
	Value  phpjson.Value
	Second phpjson.Value
}

// operandCount is the number of operands each operator takes.
var operandCount = map[string]int{
	"eq": 1, "neq": 1, "in": 1, "notIn": 1,
	"gt": 1, "gte": 1, "lt": 1, "lte": 1, "between": 2,
	"exists": 0, "missing": 0, "prefix": 1,
}

// newCondition validates like PHP: the field check comes first (QueryCondition
// constructor), then the operator and its operands. in/notIn operands are
// reduced to a list (PHP array_values).
func newCondition(field, op string, operands []phpjson.Value) (Condition, error) {
	if strings.Trim(field, phpTrimSet) == "" {
		return Condition{}, ErrEmptyField
	}
	n, ok := operandCount[op]
	if !ok {
		return Condition{}, &UnsupportedOperatorError{Op: op}
	}
	if len(operands) != n {
		return Condition{}, &OperandError{Op: op, Reason: "wrong number of operands"}
	}
	c := Condition{Field: field, Op: op}
	switch op {
	case "in", "notIn":
		list, ok := operands[0].(*phpjson.Array)
		if !ok || list == nil {
			return Condition{}, &OperandError{Op: op, Reason: "operand must be an array"}
		}
		c.Value = phpjson.NewList(list.Values()...)
	case "prefix":
		if _, ok := operands[0].(string); !ok {
			return Condition{}, &OperandError{Op: op, Reason: "operand must be a string"}
		}
		c.Value = operands[0]
	case "between":
		c.Value, c.Second = operands[0], operands[1]
	case "exists", "missing":
	default:
		c.Value = operands[0]
	}
	return c, nil
}

// actual returns the value the condition tests: the record id for "id",
// else the top-level data member (exists=false when absent; a null member
// exists).
func (c *Condition) actual(id string, data *phpjson.Array) (v phpjson.Value, exists bool) {
	if c.Field == "id" {
		return id, true
	}
	if data == nil {
		return nil, false
	}
	return data.Lookup(c.Field)
}

// Matches is PHP QueryCondition::matches_data (docs/format/docstore.md §8.5).
func (c *Condition) Matches(id string, data *phpjson.Array) (bool, error) {
	actual, exists := c.actual(id, data)
	return c.test(actual, exists)
}

// test applies the operator to an actual value.
func (c *Condition) test(actual phpjson.Value, exists bool) (bool, error) {
	switch c.Op {
	case "eq":
		return exists && phpjson.Identical(actual, c.Value), nil
	case "neq":
		return !exists || !phpjson.Identical(actual, c.Value), nil
	case "in":
		return exists && inList(actual, c.Value), nil
	case "notIn":
		return !exists || !inList(actual, c.Value), nil
	case "gt", "gte", "lt", "lte":
		if !exists {
			return false, nil
		}
		r, err := Compare(actual, c.Value)
		if err != nil {
			return false, err
		}
		switch c.Op {
		case "gt":
			return r > 0, nil
		case "gte":
			return r >= 0, nil
		case "lt":
			return r < 0, nil
		}
		return r <= 0, nil
	case "between":
		if !exists {
			return false, nil
		}
		r, err := Compare(actual, c.Value)
		if err != nil || r < 0 {
			return false, err
		}
		r, err = Compare(actual, c.Second)
		return err == nil && r <= 0, err
	case "exists":
		return exists, nil
	case "missing":
		return !exists, nil
	case "prefix":
		s, ok := actual.(string)
		p, pok := c.Value.(string)
		return exists && ok && pok && strings.HasPrefix(s, p), nil
	}
	return false, &UnsupportedOperatorError{Op: c.Op}
}

// inList is PHP in_array($v, $list, true); a non-array list holds nothing.
func inList(v phpjson.Value, list phpjson.Value) bool {
	arr, ok := list.(*phpjson.Array)
	if !ok || arr == nil {
		return false
	}
	for _, el := range arr.Values() {
		if phpjson.Identical(v, el) {
			return true
		}
	}
	return false
}

// phpTrimSet is the characters PHP trim() removes by default.
const phpTrimSet = " \t\n\r\x00\x0B"
