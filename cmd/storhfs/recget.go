package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/phpjson"
)

// recordGetCommand is `storhfs get`, the reading half of records.go's put
// and delete; a log's records are read by logcmd.go's printLogRecord.
func recordGetCommand() *cli.Command {
	return &cli.Command{
		Name:      "get",
		Usage:     "print record ID of a DocStore or SegmentedLog collection",
		ArgsUsage: "ROOT COLLECTION ID",
		Description: `DocStore: prints the record file exactly as stored (what cat shows through a
mount, comments and formatting included), after checking that storh's get()
would accept it. SegmentedLog: prints the live record as storh's get()
returns it, one line {"id":...,"data":...}, from a read-only replay (no
lock; nothing is truncated). With --data, prints only the data as one line
of storh's JSON. A missing or deleted record is an error naming the id
(exit 1). Nothing is created.

Example:
   $ storhfs get var/storh/app pages 0190b6a2-4c1e-7f3a-8d2b-2d5dba6274da
   {"id":"0190b6a2-4c1e-7f3a-8d2b-2d5dba6274da","data":{"title":"Home"}}
   $ storhfs get var/storh/app pages "$id" > r.jsonc && vi r.jsonc && storhfs put var/storh/app pages "$id" < r.jsonc
   $ storhfs get --data var/storh/app events "$id" | jq .user`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "data", Usage: "print only the record's data, as compact JSON"},
		},
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			if c.NArg() != 3 {
				return usageErr(c, "need ROOT, COLLECTION and ID")
			}
			root, collection, id := c.Args().Get(0), c.Args().Get(1), c.Args().Get(2)
			if phpTrim(root) == "" {
				return usageErr(c, "missing ROOT")
			}
			root = storageRoot(root)
			switch kindOf(root, collection) {
			case kindLog:
				return printLogRecord(c, root, collection, id, c.Bool("data"))
			case kindQueue:
				return fmt.Errorf("%s is a Queue, not a DocStore or SegmentedLog: storhfs get reads records (storhfs claim takes a job)", docstore.CollectionDir(root, collection))
			}
			if err := checkDocTarget(root, collection, false); err != nil {
				return err
			}
			dir := docstore.CollectionDir(root, collection)
			if !docstore.IsCollection(dir) {
				if err := symlinkRefusal(dir); err != nil {
					return err
				}
				return fmt.Errorf("Record not found: %s (no collection %s)", id, dir)
			}
			_, err := withDocReadOnly(target{root: root, collection: collection}, func(s *docstore.Store) (*phpjson.Array, error) {
				return nil, printRecord(c.App.Writer, s, id, c.Bool("data"))
			})
			return err
		}),
	}
}

// printRecord writes record id's file (or, with dataOnly, its data as
// storh's compact JSON and "\n") to w.
func printRecord(w io.Writer, s *docstore.Store, id string, dataOnly bool) error {
	rec, err := s.Get(id)
	if err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	if rec == nil {
		return fmt.Errorf("Record not found: %s", id)
	}
	if dataOnly {
		out, err := phpjson.Encode(rec.Data)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		_, err = w.Write(append(out, '\n'))
		return err
	}
	f, err := s.OpenRecord(id)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("Record not found: %s", id)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
