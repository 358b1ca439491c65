package main

import (
	"errors"
	"io/fs"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/core/seglog"
)

// The storh-compatible maintenance commands: `storhfs stats|verify|repair|
// reindex|compact ROOT [COLLECTION] [doc|log|queue]`, with bin/storh's
// defaults, JSON result shapes and exit codes (docs/cli.md lists every
// difference). stats and verify of every engine, and compact of doc and
// queue collections, are read-only; repair, reindex and compact of a log
// change files.

// maintenanceCommands are the five storh-compatible maintenance commands.
func maintenanceCommands() []*cli.Command {
	return []*cli.Command{
		statsCommand(),
		maintVerifyCommand(),
		repairCommand(),
		reindexCommand(),
		compactCommand(),
	}
}

// extraCommands are every command of maint.go, transfer.go, idcmd.go,
// recget.go, query.go, logcmd.go and queuecmd.go, in the order `storhfs
// --help` lists them.
func extraCommands() []*cli.Command {
	cmds := maintenanceCommands()
	cmds = append(cmds, transferCommands()...)
	cmds = append(cmds, idCommand(), recordGetCommand(), queryCommand(), appendCommand())
	return append(cmds, queueCommands()...)
}

const targetArgs = "ROOT [COLLECTION] [doc|log|queue]"

func statsCommand() *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "print a collection's stats() as storh's CLI does (read-only)",
		ArgsUsage: targetArgs,
		Description: `Prints storh's stats() result as pretty JSON on stdout. COLLECTION
defaults to "default", the engine to doc. Nothing is created, locked or
truncated; a missing collection prints the empty result PHP would print.

Example:
   $ storhfs stats var/storh/app pages
   {
       "records": 3,
       "bytes": 445,
       "corrupt": 0,
       "indexes": 6
   }
   $ storhfs stats var/storh/app events log`,
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			t, err := parseTarget(c, engineDoc)
			if err != nil {
				return err
			}
			result, err := runStats(t)
			err = inCollection(err, t.collectionDir())
			if err != nil {
				return err
			}
			return printCLIJSON(c.App.Writer, result)
		}),
	}
}

func maintVerifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "print a collection's verify() as storh's CLI does (read-only)",
		ArgsUsage: targetArgs,
		Description: `Prints storh's verify() result {"ok","errors","stats"} on stdout and exits 0,
also when "ok" is false (as storh does: parse "ok"), unless --strict is given.
The engine defaults to doc. A torn or corrupt log or queue tail is reported
in "errors" and left in place (storh's CLI truncates it first and reports
ok); run repair to cut it.

Example:
   $ storhfs verify var/storh/app jobs queue
   {
       "ok": true,
       "errors": [],
       "stats": {
           "pending": 0,
           "processing": 2,
           "done": 0,
           "bytes": 393
       }
   }
   $ storhfs verify --strict var/storh/app pages || alert "pages: index drift"`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "strict", Usage: `exit 3 when the result has "ok": false (the JSON is printed as usual)`},
		},
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			result, err := runAndPrint(c, "verify", engineDoc, runVerify)
			if err != nil {
				return err
			}
			if ok, _ := result.Lookup("ok"); c.Bool("strict") && ok != true {
				return &codedError{code: exitNotOK}
			}
			return nil
		}),
	}
}

func repairCommand() *cli.Command {
	return &cli.Command{
		Name:      "repair",
		Usage:     "repair a collection with storh's repair() (changes files)",
		ArgsUsage: targetArgs,
		Description: `Runs storh's repair() and prints its result. storh's CLI has no repair
command; this one takes the collection lock like any storh writer. The
engine defaults to doc.
  doc:   sweep orphaned temp files, quarantine unreadable records into
         .storh/corrupt/, rebuild the indexes
         -> {"ok": true, "quarantined": N, "reindexed": {"fields": F, "entries": E}}
  log:   truncate every segment at its first invalid line, rewrite the
         manifest stats -> {"ok": true, "stats": {...}}
  queue: truncate queue.log at its first invalid line, requeue jobs claimed
         --requeue-after seconds ago or earlier -> {"ok": true, "requeued": N}

Example:
   $ storhfs repair var/storh/app events log
   $ storhfs repair --requeue-after 600 var/storh/app jobs queue`,
		Flags: []cli.Flag{
			&cli.Int64Flag{Name: "requeue-after", Value: 3600, Usage: "queue: requeue jobs claimed at least this many seconds ago"},
		},
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			_, err := runAndPrint(c, "repair", engineDoc, func(t target) (*phpjson.Array, error) {
				return runRepair(t, c.Int64("requeue-after"))
			})
			return err
		}),
	}
}

func reindexCommand() *cli.Command {
	return &cli.Command{
		Name:      "reindex",
		Usage:     "rebuild a DocStore collection's indexes (storh's reindex())",
		ArgsUsage: "ROOT [COLLECTION]",
		Description: `Rebuilds the secondary indexes of a DocStore collection from its records
under the write lock and prints {"fields": F, "entries": E}. Like storh's
CLI, a third (engine) argument is accepted and ignored: reindex is always
DocStore. A corrupt record fails with its message (exit 1).

Example:
   $ storhfs reindex var/storh/app pages
   {
       "fields": 6,
       "entries": 3
   }`,
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			_, err := runAndPrint(c, "reindex", "", func(t target) (*phpjson.Array, error) {
				return withDocStore(t, (*docstore.Store).Reindex)
			})
			return err
		}),
	}
}

func compactCommand() *cli.Command {
	return &cli.Command{
		Name:      "compact",
		Usage:     "compact a log and print its stats (storh's compact command)",
		ArgsUsage: targetArgs,
		Description: `The engine defaults to log.
  log:   compact() (drops overwritten and deleted records into new segments,
         taking the lock like any storh writer), then prints stats()
  doc:   prints compact() = {"ok": true, "records": N}; nothing changes (read-only)
  queue: prints stats(); storh never compacts a queue (read-only)

Example:
   $ storhfs compact var/storh/app events
   {
       "segments": 1,
       "records": 1,
       "deleted": 0,
       "bytes": 89
   }`,
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			_, err := runAndPrint(c, "compact", engineLog, runCompact)
			return err
		}),
	}
}

// runAndPrint parses the command's target (engine defaulting to
// defaultEngine), runs run on it through runWithProgress and prints the
// result as storh's CLI does; it returns the result for further checks.
func runAndPrint(c *cli.Context, verb, defaultEngine string, run func(target) (*phpjson.Array, error)) (*phpjson.Array, error) {
	t, err := parseTarget(c, defaultEngine)
	if err != nil {
		return nil, err
	}
	result, err := runWithProgress(verb, t, func() (*phpjson.Array, error) { return run(t) })
	if err != nil {
		return nil, err
	}
	return result, printCLIJSON(c.App.Writer, result)
}

// runWithProgress runs one maintenance call on t with a progress indicator
// on a terminal, naming the collection directory in an error whose storh
// message has no path.
func runWithProgress(verb string, t target, run func() (*phpjson.Array, error)) (*phpjson.Array, error) {
	var result *phpjson.Array
	err := withProgress(verb+" "+t.collection, nil, func() error {
		var err error
		result, err = run()
		return inCollection(err, t.collectionDir())
	})
	return result, err
}

func runStats(t target) (*phpjson.Array, error) {
	switch t.engine {
	case engineLog:
		snap, err := readLog(t)
		if err != nil {
			return nil, err
		}
		defer snap.Close()
		return snap.Stats().Array(), nil
	case engineQueue:
		snap, err := readQueue(t)
		if err != nil || snap == nil {
			return queue.Stats{}.PHP(), err
		}
		defer snap.Close()
		return queueStats(snap).PHP(), nil
	}
	return withDocReader(t, emptyDocStats(), (*docstore.Store).Stats)
}

func runVerify(t target) (*phpjson.Array, error) {
	switch t.engine {
	case engineLog:
		snap, err := readLog(t)
		if err != nil {
			return nil, err
		}
		defer snap.Close()
		return snap.Verify().Array(), nil
	case engineQueue:
		h := queue.Health{OK: true, Errors: []string{}}
		snap, err := readQueue(t)
		if err != nil || snap == nil {
			return h.PHP(), err
		}
		defer snap.Close()
		h.Stats = queueStats(snap)
		if snap.Invalid != nil {
			h.OK, h.Errors = false, []string{snap.Invalid.Error()}
		}
		return h.PHP(), nil
	}
	empty := phpjson.NewArray(3)
	empty.SetString("ok", true)
	empty.SetString("errors", phpjson.NewArray(0))
	empty.SetString("stats", emptyDocStats())
	return withDocReader(t, empty, (*docstore.Store).Verify)
}

func runRepair(t target, requeueAfter int64) (*phpjson.Array, error) {
	switch t.engine {
	case engineLog:
		return withLog(t, (*seglog.Log).Repair)
	case engineQueue:
		q, err := queue.Open(t.root, t.collection, queue.Options{})
		if err != nil {
			return nil, err
		}
		defer q.Close()
		r, err := q.Repair(requeueAfter)
		if err != nil {
			return nil, err
		}
		return r.PHP(), nil
	}
	return withDocStore(t, (*docstore.Store).Repair)
}

func runCompact(t target) (*phpjson.Array, error) {
	switch t.engine {
	case engineDoc:
		empty := phpjson.NewArray(2)
		empty.SetString("ok", true)
		empty.SetString("records", int64(0))
		return withDocReader(t, empty, (*docstore.Store).Compact)
	case engineQueue:
		return runStats(t)
	}
	return withLog(t, func(l *seglog.Log) (*phpjson.Array, error) {
		if err := l.Compact(); err != nil {
			return nil, err
		}
		st, err := l.Stats()
		return st.Array(), err
	})
}

// emptyDocStats is stats() of an empty DocStore collection.
func emptyDocStats() *phpjson.Array {
	a := phpjson.NewArray(4)
	for _, k := range []string{"records", "bytes", "corrupt", "indexes"} {
		a.SetString(k, int64(0))
	}
	return a
}

// withDocStore opens the DocStore collection (creating it, as storh's
// constructor does, and sweeping dead writers' temp files), runs fn and
// closes it.
func withDocStore(t target, fn func(*docstore.Store) (*phpjson.Array, error)) (*phpjson.Array, error) {
	return withDocOpts(t, docstore.Options{}, fn)
}

// withDocReadOnly opens the DocStore collection read-only (no sweep,
// nothing created, no marker, no lock), runs fn and closes it.
func withDocReadOnly(t target, fn func(*docstore.Store) (*phpjson.Array, error)) (*phpjson.Array, error) {
	return withDocOpts(t, docstore.Options{ReadOnly: true}, fn)
}

func withDocOpts(t target, opts docstore.Options, fn func(*docstore.Store) (*phpjson.Array, error)) (*phpjson.Array, error) {
	s, err := docstore.Open(t.root, t.collection, opts)
	if err != nil {
		return nil, err
	}
	result, err := fn(s)
	if cerr := s.Close(); err == nil && cerr != nil {
		return nil, cerr
	}
	return result, err
}

// withDocReader runs fn on a read-only open of the collection (no sweep,
// nothing created). A directory that is no DocStore collection (missing,
// or without data/ and .storh/) has no records and no indexes, so it gives
// empty, the result PHP prints after creating the collection.
func withDocReader(t target, empty *phpjson.Array, fn func(*docstore.Store) (*phpjson.Array, error)) (*phpjson.Array, error) {
	if dir := docstore.CollectionDir(t.root, t.collection); !docstore.IsCollection(dir) {
		if err := symlinkRefusal(dir); err != nil {
			return nil, err
		}
		return empty, nil
	}
	return withDocReadOnly(t, fn)
}

// withLog opens the log collection like storh's constructor (creating it,
// truncating invalid tails), runs fn and closes it.
func withLog(t target, fn func(*seglog.Log) (*phpjson.Array, error)) (*phpjson.Array, error) {
	l, err := seglog.Open(t.root, t.collection, seglog.Options{})
	if err != nil {
		return nil, err
	}
	result, err := fn(l)
	if cerr := l.Close(); err == nil && cerr != nil {
		return nil, cerr
	}
	return result, err
}

// readLog replays the log collection read-only (no lock, marker,
// truncation or manifest rewrite): the state a PHP open would build, over
// the files as they are (seglog.Snapshot.Stats and Verify). A missing
// collection or manifest reads as the empty log PHP's open would create.
func readLog(t target) (*seglog.Snapshot, error) {
	return seglog.NewReader(seglog.CollectionDir(t.root, t.collection, seglog.PartitionNone, 0)).SnapshotAsOpened()
}

// readQueue replays the queue's log read-only (no lock, no truncation).
// A missing queue.log gives nil, nil: the empty queue PHP would create.
func readQueue(t target) (*queue.Snapshot, error) {
	snap, err := queue.ReadSnapshot(queue.Dir(t.root, t.collection), nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return snap, err
}

// queueStats is stats() of the snapshot's valid prefix; bytes is the whole
// file, torn tail included, as PHP's stats() reports it.
func queueStats(snap *queue.Snapshot) queue.Stats {
	return queue.Stats{Counts: snap.Counts(), Bytes: snap.Size}
}
