package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/core/seglog"
)

// engineCommands write logs and queues through the core, as a PHP
// application would while a mount is live:
//
//	log-append ROOT COLLECTION < rows      appendStream, one row per line: {"id":ID,"data":{...}} or {...}
//	log-delete ROOT COLLECTION ID...
//	queue-enqueue ROOT NAME < payloads     one JSON object per line; prints the new ids
//	queue-claim ROOT NAME [-n N]           prints the claimed ids
//	queue-complete ROOT NAME [--keep] ID...
func engineCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name: "log-append", ArgsUsage: "ROOT COLLECTION",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "partition", Usage: "daily or monthly"},
				&cli.Int64Flag{Name: "partition-ms", Usage: "timestamp choosing the partition"},
				&cli.Int64Flag{Name: "max-segment-bytes"},
			},
			Action: func(c *cli.Context) error {
				return withTestLog(c, func(l *seglog.Log) error {
					sc := newLineScanner()
					_, err := l.AppendStream(func() (phpjson.Value, bool, error) {
						for sc.Scan() {
							if len(sc.Bytes()) > 0 {
								v, err := phpjson.Decode(sc.Bytes())
								return v, true, err
							}
						}
						return nil, false, sc.Err()
					})
					return err
				})
			},
		},
		{
			Name: "log-delete", ArgsUsage: "ROOT COLLECTION ID...",
			Action: func(c *cli.Context) error {
				return withTestLog(c, func(l *seglog.Log) error {
					for _, id := range c.Args().Slice()[2:] {
						if err := l.Delete(id); err != nil {
							return err
						}
					}
					return nil
				})
			},
		},
		{
			Name: "queue-enqueue", ArgsUsage: "ROOT NAME",
			Action: func(c *cli.Context) error {
				return withTestQueue(c, func(q *queue.Queue) error {
					return eachJSONLine(func(v *phpjson.Array) error {
						id, err := q.Enqueue(v, "")
						if err == nil {
							fmt.Fprintln(c.App.Writer, id)
						}
						return err
					})
				})
			},
		},
		{
			Name: "queue-claim", ArgsUsage: "ROOT NAME",
			Flags: []cli.Flag{&cli.IntFlag{Name: "n", Value: 1}},
			Action: func(c *cli.Context) error {
				return withTestQueue(c, func(q *queue.Queue) error {
					jobs, err := q.ClaimMany(c.Int("n"))
					for _, j := range jobs {
						fmt.Fprintln(c.App.Writer, j.ID)
					}
					return err
				})
			},
		},
		{
			Name: "queue-complete", ArgsUsage: "ROOT NAME ID...",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "keep", Usage: "keep the job as done"}},
			Action: func(c *cli.Context) error {
				return withTestQueue(c, func(q *queue.Queue) error {
					_, err := q.CompleteMany(c.Args().Slice()[2:], c.Bool("keep"))
					return err
				})
			},
		},
	}
}

func withTestLog(c *cli.Context, fn func(*seglog.Log) error) error {
	if c.NArg() < 2 {
		return usageError(c, "need ROOT and COLLECTION")
	}
	opts := seglog.Options{Partition: c.String("partition"), MaxSegmentBytes: c.Int64("max-segment-bytes")}
	if c.IsSet("partition-ms") {
		ms := c.Int64("partition-ms")
		opts.PartitionTimestampMs = &ms
	}
	l, err := seglog.Open(storageRoot(c.Args().Get(0)), c.Args().Get(1), opts)
	if err != nil {
		return err
	}
	defer l.Close()
	return fn(l)
}

func withTestQueue(c *cli.Context, fn func(*queue.Queue) error) error {
	if c.NArg() < 2 {
		return usageError(c, "need ROOT and NAME")
	}
	q, err := queue.Open(storageRoot(c.Args().Get(0)), c.Args().Get(1), queue.Options{})
	if err != nil {
		return err
	}
	defer q.Close()
	return fn(q)
}

// eachJSONLine decodes every non-empty stdin line as a JSON object.
func eachJSONLine(fn func(*phpjson.Array) error) error {
	sc := newLineScanner()
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		v, err := phpjson.Decode(sc.Bytes())
		if err != nil {
			return fmt.Errorf("stdin: %w", err)
		}
		a, ok := v.(*phpjson.Array)
		if !ok {
			return fmt.Errorf("stdin: %s is not a JSON object", sc.Bytes())
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return sc.Err()
}

func newLineScanner() *bufio.Scanner {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return sc
}
