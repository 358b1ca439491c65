package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/phpjson"
)

// transferCommands are export and import: a DocStore collection to and from
// JSONL exactly as storh's exportJsonl()/importJsonl() write and read it
// (docs/format/docstore.md §10).
func transferCommands() []*cli.Command {
	return []*cli.Command{exportCommand(), importCommand()}
}

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write every record of a DocStore collection to FILE.jsonl (storh's exportJsonl)",
		ArgsUsage: "ROOT COLLECTION FILE.jsonl|-",
		Description: `Writes one {"id":...,"data":...} line per record, in id order, re-encoded
canonically (comments and formatting are not kept), and prints
{"ok": true, "exported": N}. FILE is created or truncated (its directory
too); "-" writes the lines to standard output and the summary to standard
error. The collection is only read. A missing collection, or a log or
queue, is an error (exit 1): nothing is exported. A corrupt record stops
the export with its message (exit 1) and leaves a partial FILE, as storh
does.

Example:
   $ storhfs export var/storh/app pages /backup/pages.jsonl
   {
       "ok": true,
       "exported": 3
   }
   $ storhfs export var/storh/app pages - | gzip > pages.jsonl.gz`,
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			root, collection, file, err := transferArgs(c)
			if err != nil {
				return err
			}
			if err := checkDocTarget(root, collection, true); err != nil {
				return err
			}
			t := target{root: root, collection: collection}
			if file == stdio {
				return runTransfer(c, t, "export", nil, withDocReadOnly, c.App.ErrWriter,
					func(s *docstore.Store) (int, error) { return s.ExportJSONLTo(c.App.Writer) })
			}
			return runTransfer(c, t, "export", fileSize(file), withDocReadOnly, c.App.Writer,
				func(s *docstore.Store) (int, error) { return s.ExportJSONL(file) })
		}),
	}
}

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "store every line of FILE.jsonl in a DocStore collection (storh's importJsonl)",
		ArgsUsage: "ROOT COLLECTION FILE.jsonl|-",
		Description: `Reads FILE ("-": standard input) as storh's importJsonl() does, under one
hold of the collection's write lock: a {"id":...,"data":...} line is
stored verbatim, any other object is stored canonically under its "id" or
a new one; blank lines are skipped. Prints {"ok": true, "imported": N}.
The collection is created if missing; a log or queue is refused. A bad
line stops the import with its line number and message (exit 1); earlier
lines stay imported.

Example:
   $ storhfs import var/storh/app pages /backup/pages.jsonl
   {
       "ok": true,
       "imported": 3
   }
   $ gunzip -c pages.jsonl.gz | storhfs import var/storh/app pages -`,
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			root, collection, file, err := transferArgs(c)
			if err != nil {
				return err
			}
			if err := checkDocTarget(root, collection, false); err != nil {
				return err
			}
			t := target{root: root, collection: collection}
			if file == stdio {
				return runTransfer(c, t, "import", nil, withDocStore, c.App.Writer,
					func(s *docstore.Store) (int, error) { return s.ImportJSONLFrom(c.App.Reader) })
			}
			return runTransfer(c, t, "import", nil, withDocStore, c.App.Writer,
				func(s *docstore.Store) (int, error) { return s.ImportJSONL(file) })
		}),
	}
}

// stdio is the FILE argument that means standard input or output.
const stdio = "-"

// runTransfer runs one JSONL transfer (verb "export" or "import") on the
// collection of t, opened by open, with a progress indicator (bytes: the
// progress total, or nil), and prints {"ok": true, "<verb>ed": n} to
// summary. A failing import line is reported with its number.
func runTransfer(c *cli.Context, t target, verb string, bytes func() int64,
	open func(target, func(*docstore.Store) (*phpjson.Array, error)) (*phpjson.Array, error),
	summary io.Writer, run func(*docstore.Store) (int, error)) error {
	var n int
	err := withProgress(verb+" "+t.collection, bytes, func() error {
		_, err := open(t, func(s *docstore.Store) (*phpjson.Array, error) {
			var err error
			n, err = run(s)
			return nil, withLine(inCollection(err, s.Dir()))
		})
		return err
	})
	if err != nil {
		return err
	}
	return printCLIJSON(summary, countResult(verb+"ed", n))
}

// withLine puts the line number of a failing import line in front of its
// message: "line 7: Syntax error (var/app/pages)".
func withLine(err error) error {
	var le *docstore.LineError
	if !errors.As(err, &le) {
		return err
	}
	return &contextError{msg: fmt.Sprintf("line %d: %s", le.Line, err), err: err}
}

// transferArgs reads ROOT COLLECTION FILE (all required).
func transferArgs(c *cli.Context) (root, collection, file string, err error) {
	if c.NArg() != 3 {
		return "", "", "", usageErr(c, "need ROOT, COLLECTION and FILE")
	}
	root, collection, file = storageRoot(c.Args().Get(0)), c.Args().Get(1), c.Args().Get(2)
	if phpTrim(root) == "" || file == "" {
		return "", "", "", usageErr(c, "ROOT and FILE must not be empty")
	}
	return root, collection, file, nil
}

// countResult is {"ok": true, <key>: n}.
func countResult(key string, n int) *phpjson.Array {
	a := phpjson.NewArray(2)
	a.SetString("ok", true)
	a.SetString(key, int64(n))
	return a
}
