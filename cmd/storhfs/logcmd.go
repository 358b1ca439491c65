package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/seglog"
)

// The SegmentedLog record commands: `storhfs append ROOT LOG ...` here, and
// `storhfs get ROOT LOG ID` (recget.go, which picks the engine).

func appendCommand() *cli.Command {
	return &cli.Command{
		Name:      "append",
		Usage:     "append records to a SegmentedLog and print their ids (storh's appendMany)",
		ArgsUsage: "ROOT LOG [JSON...]",
		Description: `Each JSON argument is one record's data, a JSON object (PHP's put($data));
with no JSON argument, each non-blank line of standard input is one. storh
reads back only the string keys of a record's data, so a list or a numeric
key ({"1":...}) is refused rather than dropped. All records are appended under one lock with fresh ids, nothing is
written if any is invalid, and the ids are printed one per line, in order
(PHP returns the records; their data is what you gave). The log must exist
unless --create is given. Opening the log is storh's open: it takes the
lock and cuts a torn tail, as every PHP writer does.

Example:
   $ storhfs append var/storh/app events '{"type":"user.login","user":"ann"}'
   019a7c3e-5b1f-7d2a-9c41-0e8f3b2a6d10
   $ tail -f app.ndjson | storhfs append var/storh/app events`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "create", Usage: "create the log if it does not exist"},
		},
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			if err := checkArgs(c, 2, -1, "ROOT and LOG"); err != nil {
				return err
			}
			root, name := c.Args().Get(0), c.Args().Get(1)
			if phpTrim(root) == "" {
				return usageErr(c, "missing ROOT")
			}
			root = storageRoot(root)
			if err := checkLogTarget(c.Command.Name, root, name, c.Bool("create")); err != nil {
				return err
			}
			data, err := jsonInputs(c.Args().Slice()[2:], 3, c.App.Reader, stringKeysOnly)
			if err != nil {
				return err
			}
			rows := make([]phpjson.Value, len(data))
			for i, d := range data {
				// appendMany's row rule: a row's "data" array is the record's
				// data, and the row has no "id", so a fresh one is generated.
				row := phpjson.NewArray(1)
				row.SetString("data", d)
				rows[i] = row
			}
			var recs []seglog.Record
			_, err = withLog(target{root: root, collection: name}, func(l *seglog.Log) (*phpjson.Array, error) {
				recs, err = l.AppendMany(rows)
				return nil, err
			})
			if err != nil {
				return inCollection(err, seglog.CollectionDir(root, name, seglog.PartitionNone, 0))
			}
			ids := make([]string, len(recs))
			for i, r := range recs {
				ids[i] = r.ID
			}
			return printLines(c, ids)
		}),
	}
}

// checkLogTarget is requireKind for a log, which also refuses a
// partitioned log (its records live in partitions, which these commands
// do not select).
func checkLogTarget(command, root, name string, create bool) error {
	if err := checkRoot(root); err != nil {
		return err
	}
	if err := requireKind(command, root, name, kindLog, create); err != nil {
		return err
	}
	dir := seglog.CollectionDir(root, name, seglog.PartitionNone, 0)
	if seglog.IsCollection(dir) && !seglog.HasManifest(dir) {
		return fmt.Errorf("%s is a partitioned log: storhfs %s works on logs without partitions only", dir, command)
	}
	return nil
}

// printLogRecord prints the live record id of the log ROOT/LOG as one line
// {"id":...,"data":...} (with dataOnly, the data alone), read from a
// read-only replay (no lock, nothing truncated or created).
func printLogRecord(c *cli.Context, root, name, id string, dataOnly bool) error {
	if err := validIDs(c, []string{id}, 3); err != nil {
		return err
	}
	if err := checkLogTarget(c.Command.Name, root, name, false); err != nil {
		return err
	}
	snap, err := readLog(target{root: root, collection: name})
	if err != nil {
		return inCollection(err, seglog.CollectionDir(root, name, seglog.PartitionNone, 0))
	}
	defer snap.Close()
	rec, err := snap.Get(id)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", id, err)
	case rec == nil:
		return fmt.Errorf("Record not found: %s", id)
	case dataOnly:
		out, err := phpjson.Encode(rec.Data)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		_, err = c.App.Writer.Write(append(out, '\n'))
		return err
	}
	return printRecordLine(c.App.Writer, rec.ID, rec.Data)
}
