package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/query"
)

// `storhfs query ROOT COLLECTION`: storh's QueryBuilder (core/query) on a
// DocStore, read-only, answered from the secondary indexes where PHP's
// would be. Each --where is one where(FIELD)->OP(VALUE) of one AND group.

func queryCommand() *cli.Command {
	return &cli.Command{
		Name:      "query",
		Usage:     "print the records of a DocStore query as NDJSON (storh's query builder)",
		ArgsUsage: "ROOT COLLECTION",
		Description: `Runs storh's query()->where(...)->...->get() on a DocStore collection and
prints each result as one line {"id":...,"data":...}, in id order, or in
--order. Read-only: no lock, nothing created; the indexes answer what PHP's
indexes answer (see --explain).

A --where is FIELD OP VALUE; several are ANDed. OP is one of
   =  !=  >  >=  <  <=          (or eq neq gt gte lt lte)
   in [V,...]   notIn [V,...]   between [LOW,HIGH]   prefix TEXT   exists   missing
VALUE is JSON when it parses as JSON (10, 1.5, true, null, "10", [1,2]),
otherwise the text as a string: kind=post is the string "post", score>=10
the integer 10. Quote a string that looks like JSON: tag='"true"'. Values
compare as storh's do: strictly (1 is not 1.0 nor "1").

Example:
   $ storhfs query --where kind=post --where 'score>=10' --order score --desc --limit 3 var/storh/app pages
   {"id":"0190b6a2-...","data":{"kind":"post","score":42}}
   $ storhfs query --where 'score between [10,20]' --count var/storh/app pages
   $ storhfs query --where kind=post --after "$last_id" --limit 100 var/storh/app pages   # next page
   $ storhfs query --where kind=post --explain var/storh/app pages`,
		Flags: []cli.Flag{
			&cli.GenericFlag{Name: "where", Value: &repeated{}, Usage: "condition `FIELD OP VALUE` (repeatable; all must hold)"},
			&cli.StringFlag{Name: "order", Usage: "sort by `FIELD` (id: the record id; a missing field sorts as null)"},
			&cli.BoolFlag{Name: "desc", Usage: "with --order: descending"},
			&cli.IntFlag{Name: "limit", DefaultText: "no limit", Usage: "print at most `N` records (after ordering)"},
			&cli.StringFlag{Name: "after", Usage: "only records whose id is greater than `ID` (the last id of the previous page)"},
			&cli.BoolFlag{Name: "count", Usage: "print the number of matches (capped at --limit) instead of the records"},
			&cli.BoolFlag{Name: "explain", Usage: "print storh's explain() of the query instead of running it"},
		},
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			if err := checkArgs(c, 2, 2, "ROOT and COLLECTION"); err != nil {
				return err
			}
			root, collection := c.Args().Get(0), c.Args().Get(1)
			if phpTrim(root) == "" {
				return usageErr(c, "missing ROOT")
			}
			if c.Bool("count") && c.Bool("explain") {
				return usageErr(c, "--count and --explain exclude each other")
			}
			if c.Bool("desc") && !c.IsSet("order") {
				return usageErr(c, "--desc needs --order FIELD")
			}
			root = storageRoot(root)
			if err := checkRoot(root); err != nil {
				return err
			}
			if err := requireKind(c.Command.Name, root, collection, kindDoc, false); err != nil {
				return err
			}
			_, err := withDocReadOnly(target{root: root, collection: collection}, func(s *docstore.Store) (*phpjson.Array, error) {
				q, err := buildQuery(c, s.Query())
				if err != nil {
					return nil, err
				}
				return nil, runQuery(c, q)
			})
			return err
		}),
	}
}

// buildQuery adds the command's flags to q, in PHP's call order. A
// condition or flag the builder refuses is a usage error naming it.
func buildQuery(c *cli.Context, q *query.Builder) (*query.Builder, error) {
	for _, expr := range c.Generic("where").(*repeated).values {
		field, op, operands, err := parseWhere(expr)
		if err == nil {
			q = q.Where(field, op, operands...)
			err = q.Err()
		}
		if err != nil {
			return nil, usageErr(c, "--where %q: %v", expr, err)
		}
	}
	if c.IsSet("order") {
		dir := "asc"
		if c.Bool("desc") {
			dir = "desc"
		}
		q = q.OrderBy(c.String("order"), dir)
	}
	if c.IsSet("limit") {
		if q = q.Limit(c.Int("limit")); q.Err() != nil {
			return nil, usageErr(c, "--limit %d: %v", c.Int("limit"), q.Err())
		}
	}
	if c.IsSet("after") {
		if q = q.Cursor(c.String("after")); q.Err() != nil {
			return nil, usageErr(c, "--after %q: %v", c.String("after"), q.Err())
		}
	}
	return q, q.Err()
}

// runQuery prints q's explain(), count() or get(), as the flags ask.
func runQuery(c *cli.Context, q *query.Builder) error {
	switch {
	case c.Bool("explain"):
		plan, err := q.Explain()
		if err != nil {
			return err
		}
		return printCLIJSON(c.App.Writer, plan)
	case c.Bool("count"):
		n, err := q.Count()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(c.App.Writer, n)
		return err
	}
	w := bufio.NewWriter(c.App.Writer)
	err := q.Stream(func(r query.Record) error { return printRecordLine(w, r.ID, r.Data) })
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// repeated is a flag value that may be given many times, each value kept
// whole (urfave/cli's StringSliceFlag would split "[4,6]" at the comma).
type repeated struct{ values []string }

func (r *repeated) Set(v string) error { r.values = append(r.values, v); return nil }
func (r *repeated) String() string     { return strings.Join(r.values, " ") }

// symbolOps are the --where operators written as symbols, longest first
// so that ">=" is not read as ">".
var symbolOps = []struct{ symbol, op string }{
	{"!=", "neq"}, {">=", "gte"}, {"<=", "lte"}, {"=", "eq"}, {">", "gt"}, {"<", "lt"},
}

// wordOps are the operators written as words, with how many operands
// each takes from VALUE: 1, a JSON list (in, notIn; -1), a pair
// (between; 2) or none (exists, missing; 0).
var wordOps = map[string]int{
	"eq": 1, "neq": 1, "gt": 1, "gte": 1, "lt": 1, "lte": 1, "prefix": 1,
	"in": -1, "notIn": -1, "between": 2, "exists": 0, "missing": 0,
}

// parseWhere splits a --where expression FIELD OP VALUE (spaces around a
// symbol operator optional) into the field, storh's operator name and its
// operands.
func parseWhere(expr string) (field, op string, operands []phpjson.Value, err error) {
	end := strings.IndexAny(expr, "=!<> \t")
	if end < 0 {
		return "", "", nil, errors.New("want FIELD OP VALUE, e.g. kind=post or 'score >= 10'")
	}
	field, rest := expr[:end], strings.TrimLeft(expr[end:], " \t")
	if field == "" {
		return "", "", nil, errors.New("missing FIELD before the operator")
	}
	for _, s := range symbolOps {
		if strings.HasPrefix(rest, s.symbol) {
			op, rest = s.op, rest[len(s.symbol):]
			break
		}
	}
	if op == "" {
		op, rest, _ = strings.Cut(rest, " ")
		if _, ok := wordOps[op]; !ok {
			return "", "", nil, fmt.Errorf("unknown operator %q (want = != > >= < <= in notIn between prefix exists missing)", op)
		}
	}
	operands, err = parseOperands(op, strings.TrimSpace(rest))
	return field, op, operands, err
}

// parseOperands reads VALUE for op (wordOps tells the shape).
func parseOperands(op, text string) ([]phpjson.Value, error) {
	n := wordOps[op]
	if n == 0 {
		if text != "" {
			return nil, fmt.Errorf("%s takes no value, got %q", op, text)
		}
		return nil, nil
	}
	if text == "" {
		return nil, fmt.Errorf("missing VALUE after %s (an empty string is \"\")", op)
	}
	v := operandValue(text)
	if n == 1 {
		return []phpjson.Value{v}, nil
	}
	list, ok := v.(*phpjson.Array)
	if !ok || !list.IsList() || (n == 2 && list.Len() != 2) {
		if n == 2 {
			return nil, fmt.Errorf("between takes a JSON pair [LOW,HIGH], got %s", text)
		}
		return nil, fmt.Errorf("%s takes a JSON list [V,...], got %s", op, text)
	}
	if n == 2 {
		return list.Values(), nil
	}
	return []phpjson.Value{list}, nil
}

// operandValue is text decoded as JSON, or text itself when it is not JSON.
func operandValue(text string) phpjson.Value {
	if v, err := phpjson.Decode([]byte(text)); err == nil {
		return v
	}
	return text
}
