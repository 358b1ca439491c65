package main

import (
	"bufio"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/queue"
)

// The queue commands: `storhfs enqueue|claim|complete|fail|requeue ROOT
// QUEUE ...`, each one call of the Queue engine (core/queue), which takes
// queue.lock and syncs from queue.log exactly as PHP's LogQueue does, so
// they are safe beside live PHP workers: no job is handed out twice.

func queueCommands() []*cli.Command {
	return []*cli.Command{enqueueCommand(), claimCommand(), completeCommand(), failCommand(), requeueCommand()}
}

func enqueueCommand() *cli.Command {
	return &cli.Command{
		Name:      "enqueue",
		Usage:     "add jobs to a queue and print their ids (storh's enqueue)",
		ArgsUsage: "ROOT QUEUE [JSON...]",
		Description: `Each JSON argument is one job's payload, a JSON object; with no JSON
argument, each non-blank line of standard input is one. storh keeps only
the string keys of a payload, so a list or a numeric key ({"1":...}) is
refused rather than dropped. All jobs are
written under one lock (PHP's enqueueMany), nothing is written if any payload
is invalid, and their new ids are printed one per line, in order.
The queue must exist unless --create is given.

Example:
   $ storhfs enqueue var/storh/app mail '{"to":"ann@example.test"}'
   019a7c3e-5b1f-7d2a-9c41-0e8f3b2a6d10
   $ jq -c '.[]' jobs.json | storhfs enqueue var/storh/app mail`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "create", Usage: "create the queue if it does not exist"},
		},
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			if err := checkArgs(c, 2, -1, "ROOT and QUEUE"); err != nil {
				return err
			}
			payloads, err := jsonInputs(c.Args().Slice()[2:], 3, c.App.Reader, stringKeysOnly)
			if err != nil {
				return err
			}
			jobs := make([]queue.Job, len(payloads))
			for i, p := range payloads {
				jobs[i] = queue.Job{Payload: p}
			}
			return withQueue(c, c.Bool("create"), func(q *queue.Queue) error {
				ids, err := q.EnqueueMany(jobs)
				if err != nil {
					return err
				}
				return printLines(c, ids)
			})
		}),
	}
}

func claimCommand() *cli.Command {
	return &cli.Command{
		Name:      "claim",
		Usage:     "claim the next pending job and print it (storh's claim)",
		ArgsUsage: "ROOT QUEUE",
		Description: fmt.Sprintf(`Claims the first pending job, as a PHP worker's claim() does, and prints it
as one line {"id":...,"data":PAYLOAD}. The job is then processing until
complete, fail, or a requeue after a timeout. When no job is pending,
nothing is printed and the exit status is %d.

Example:
   $ while job=$(storhfs claim var/storh/app mail); do
   >   work "$job" && storhfs complete var/storh/app mail "$(jq -r .id <<<"$job")"
   > done`, exitNoJob),
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			if err := checkArgs(c, 2, 2, "ROOT and QUEUE"); err != nil {
				return err
			}
			var job *queue.Record
			err := withQueue(c, false, func(q *queue.Queue) (err error) {
				job, err = q.Claim()
				return err
			})
			switch {
			case err != nil:
				return err
			case job == nil:
				return &codedError{code: exitNoJob}
			}
			return printRecordLine(c.App.Writer, job.ID, job.Payload)
		}),
	}
}

func completeCommand() *cli.Command {
	return &cli.Command{
		Name:      "complete",
		Usage:     "finish claimed jobs and print how many were processing (storh's completeMany)",
		ArgsUsage: "ROOT QUEUE ID...",
		Description: `Completes each job ID that is processing: it is kept as done (until purged),
or with --forget removed from the queue. IDs that are not processing are
skipped, as storh does; the number completed is printed.

Example:
   $ storhfs complete var/storh/app mail 019a7c3e-5b1f-7d2a-9c41-0e8f3b2a6d10
   1`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "forget", Usage: "do not keep the jobs as done (storh's keep_done = false)"},
		},
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			return runOnIDs(c, func(q *queue.Queue, ids []string) (int, error) {
				return q.CompleteMany(ids, !c.Bool("forget"))
			})
		}),
	}
}

func failCommand() *cli.Command {
	return &cli.Command{
		Name:      "fail",
		Usage:     "give claimed jobs back for a retry and print how many were processing",
		ArgsUsage: "ROOT QUEUE ID...",
		Description: `storh has no failed state: a job a worker could not finish stays processing
until requeue_timed_out() or repair() puts it back. fail does that now for
each job ID that is processing (the same requeue event), so the next claim
retries it, after the jobs already pending. The number requeued is printed.
To drop a job instead, use complete --forget.

Example:
   $ storhfs fail var/storh/app mail 019a7c3e-5b1f-7d2a-9c41-0e8f3b2a6d10
   1`,
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			return runOnIDs(c, (*queue.Queue).RequeueMany)
		}),
	}
}

func requeueCommand() *cli.Command {
	return &cli.Command{
		Name:      "requeue",
		Usage:     "requeue jobs claimed --timeout seconds ago or earlier (storh's requeue_timed_out)",
		ArgsUsage: "--timeout SECONDS ROOT QUEUE",
		Description: `Puts every processing job claimed at least --timeout seconds ago back at the
end of the pending order (jobs of workers that died) and prints how many.

Example:
   $ storhfs requeue --timeout 600 var/storh/app mail
   2`,
		Flags: []cli.Flag{
			&cli.Int64Flag{Name: "timeout", Usage: "requeue jobs claimed at least this many `SECONDS` ago (0: every processing job)"},
		},
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			if err := checkArgs(c, 2, 2, "ROOT and QUEUE"); err != nil {
				return err
			}
			if !c.IsSet("timeout") {
				return usageErr(c, "missing --timeout SECONDS")
			}
			return withQueue(c, false, func(q *queue.Queue) error {
				n, err := q.RequeueTimedOut(c.Int64("timeout"))
				if err != nil {
					return err
				}
				return printLines(c, []string{fmt.Sprint(n)})
			})
		}),
	}
}

// runOnIDs runs op on the ids after ROOT and QUEUE and prints its count.
func runOnIDs(c *cli.Context, op func(q *queue.Queue, ids []string) (int, error)) error {
	if err := checkArgs(c, 3, -1, "ROOT, QUEUE and at least one ID"); err != nil {
		return err
	}
	ids := c.Args().Slice()[2:]
	if err := validIDs(c, ids, 3); err != nil {
		return err
	}
	return withQueue(c, false, func(q *queue.Queue) error {
		n, err := op(q, ids)
		if err != nil {
			return err
		}
		return printLines(c, []string{fmt.Sprint(n)})
	})
}

// withQueue opens the queue ROOT QUEUE (arguments 0 and 1; a missing one
// only with create), runs fn and closes it.
func withQueue(c *cli.Context, create bool, fn func(*queue.Queue) error) error {
	root, name := c.Args().Get(0), c.Args().Get(1)
	if phpTrim(root) == "" {
		return usageErr(c, "missing ROOT")
	}
	root = storageRoot(root)
	if err := checkRoot(root); err != nil {
		return err
	}
	if err := requireKind(c.Command.Name, root, name, kindQueue, create); err != nil {
		return err
	}
	q, err := queue.Open(root, name, queue.Options{})
	if err != nil {
		return inCollection(err, queue.Dir(root, name))
	}
	err = fn(q)
	if cerr := q.Close(); err == nil {
		err = cerr
	}
	return inCollection(err, q.Path())
}

// printLines writes each line and "\n" to the command's output.
func printLines(c *cli.Context, lines []string) error {
	w := bufio.NewWriter(c.App.Writer)
	for _, l := range lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	return w.Flush()
}
