package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"storhfs/core/docstore"
	"storhfs/core/phpjson"
)

// transferCommands are export and import: a DocStore collection to and from
// JSONL exactly as storh's exportJsonl()/importJsonl() write and read it
// (spec docstore.md 10).
func transferCommands() []*cli.Command {
	return []*cli.Command{exportCommand(), importCommand()}
}

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write every record of a DocStore collection to FILE.jsonl (storh's exportJsonl)",
		ArgsUsage: "ROOT COLLECTION FILE.jsonl",
		Description: `Writes one {"id":...,"data":...} line per record, in id order, re-encoded
canonically (comments and formatting are not kept), and prints
{"ok": true, "exported": N}. FILE is created or truncated (its directory
too); the collection is only read. A corrupt record stops the export with
its message (exit 1) and leaves a partial FILE, as storh does.

Example:
   $ storhfs export var/storh/app pages /backup/pages.jsonl
   {
       "ok": true,
       "exported": 3
   }`,
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			root, collection, file, err := transferArgs(c)
			if err != nil {
				return err
			}
			dir := docstore.CollectionDir(root, collection)
			if !docstore.IsCollection(dir) {
				if err := symlinkRefusal(dir); err != nil {
					return err
				}
				return fmt.Errorf("Collection does not exist: %s", dir)
			}
			return runTransfer(c, target{root: root, collection: collection}, "export", fileSize(file), withDocReadOnly,
				func(s *docstore.Store) (int, error) { return s.ExportJSONL(file) })
		}),
	}
}

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "store every line of FILE.jsonl in a DocStore collection (storh's importJsonl)",
		ArgsUsage: "ROOT COLLECTION FILE.jsonl",
		Description: `Reads FILE as storh's importJsonl() does, under one hold of the
collection's write lock: a {"id":...,"data":...} line is stored verbatim,
any other object is stored canonically under its "id" or a new one; blank
lines are skipped. Prints {"ok": true, "imported": N}. The collection is
created if missing. A bad line stops the import with its message (exit 1);
earlier lines stay imported.

Example:
   $ storhfs import var/storh/app pages /backup/pages.jsonl
   {
       "ok": true,
       "imported": 3
   }`,
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			root, collection, file, err := transferArgs(c)
			if err != nil {
				return err
			}
			return runTransfer(c, target{root: root, collection: collection}, "import", nil, withDocStore,
				func(s *docstore.Store) (int, error) { return s.ImportJSONL(file) })
		}),
	}
}

// runTransfer runs one JSONL transfer (verb "export" or "import") on the
// collection of t, opened by open, with a progress indicator (bytes: the
// progress total, or nil), and prints {"ok": true, "<verb>ed": n}.
func runTransfer(c *cli.Context, t target, verb string, bytes func() int64,
	open func(target, func(*docstore.Store) (*phpjson.Array, error)) (*phpjson.Array, error),
	run func(*docstore.Store) (int, error)) error {
	var n int
	err := withProgress(verb+" "+t.collection, bytes, func() error {
		_, err := open(t, func(s *docstore.Store) (*phpjson.Array, error) {
			var err error
			n, err = run(s)
			return nil, inCollection(err, s.Dir())
		})
		return err
	})
	if err != nil {
		return err
	}
	return printCLIJSON(c.App.Writer, countResult(verb+"ed", n))
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
