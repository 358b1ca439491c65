package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/core/seglog"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:      "demo",
		Usage:     "create a small demo storage root (collections, a namespace, an index manifest)",
		ArgsUsage: "ROOT",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "records", Value: 300, Usage: "records in the biggest collection"},
		},
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(c, "need ROOT")
			}
			root := storageRoot(c.Args().Get(0))
			if entries, err := os.ReadDir(root); err == nil && len(entries) > 0 {
				return fmt.Errorf("demo root %s exists and is not empty", root)
			}
			n := c.Int("records")
			var written atomic.Int64
			p := startCountProgress(os.Stderr, "writing demo records", demoRecords(n), written.Load)
			err := writeDemo(root, n, &written)
			p.Finish()
			if err != nil {
				return err
			}
			fmt.Printf("storhfs: demo storage root written to %s\n", root)
			return nil
		},
	}
}

// writeDemo fills root with:
//
//	pages/        n records; indexes: slug unique, kind equality, score range
//	notes/        n/3 records, no indexes
//	app/users/    n/2 records in a namespace; index: email unique
//	events/       a SegmentedLog of n appends (16 KiB segments, so it rolls) and a few deletes
//	jobs/         a Queue of n/10 jobs: some done, some claimed, the rest pending
//
// written counts the collection records stored so far (demoRecords in all).
func writeDemo(root string, n int, written *atomic.Int64) error {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []string{"page", "post", "draft"}
	err := demoCollection(root, "pages", n, written, []docindex.Definition{
		{Field: "kind"}, {Field: "score", Range: true}, {Field: "slug", Unique: true},
	}, func(i int, d *phpjson.Array) {
		d.SetString("slug", fmt.Sprintf("page-%04d", i))
		d.SetString("title", fmt.Sprintf("Page number %d", i))
		d.SetString("kind", kinds[i%len(kinds)])
		d.SetString("score", rng.Int64N(1000))
		d.SetString("tags", phpjson.NewList("demo", kinds[rng.IntN(len(kinds))]))
	})
	if err != nil {
		return err
	}
	err = demoCollection(root, "notes", n/3, written, nil, func(i int, d *phpjson.Array) {
		d.SetString("text", fmt.Sprintf("note %d: remember to water plant %d", i, rng.IntN(20)))
		d.SetString("done", i%4 == 0)
	})
	if err != nil {
		return err
	}
	err = demoCollection(root, "app/users", n/2, written, []docindex.Definition{{Field: "email", Unique: true}},
		func(i int, d *phpjson.Array) {
			d.SetString("name", fmt.Sprintf("User %d", i))
			d.SetString("email", fmt.Sprintf("user%d@example.org", i))
			d.SetString("age", int64(18+rng.IntN(60)))
		})
	if err != nil {
		return err
	}
	if err := demoLog(root, "events", n); err != nil {
		return err
	}
	return demoQueue(root, "jobs", n/10)
}

// demoLog appends n events and deletes every tenth one, so records.ndjson
// and the raw segments differ.
func demoLog(root, name string, n int) error {
	l, err := seglog.Open(root, name, seglog.Options{MaxSegmentBytes: 16 << 10})
	if err != nil {
		return fmt.Errorf("demo %s: %w", name, err)
	}
	defer l.Close()
	rows := make([]phpjson.Value, 0, n)
	for i := range n {
		d := phpjson.NewArray(2)
		d.SetString("event", []string{"login", "logout", "view"}[i%3])
		d.SetString("user", int64(i%50))
		rows = append(rows, d)
	}
	recs, err := l.AppendMany(rows)
	if err != nil {
		return fmt.Errorf("demo %s: %w", name, err)
	}
	for i := 0; i < len(recs); i += 10 {
		if err := l.Delete(recs[i].ID); err != nil {
			return fmt.Errorf("demo %s: %w", name, err)
		}
	}
	return nil
}

// demoQueue enqueues n jobs (at least 4), claims half of them and completes
// half of those.
func demoQueue(root, name string, n int) error {
	n = max(n, 4)
	q, err := queue.Open(root, name, queue.Options{})
	if err != nil {
		return fmt.Errorf("demo %s: %w", name, err)
	}
	defer q.Close()
	jobs := make([]queue.Job, n)
	for i := range jobs {
		p := phpjson.NewArray(1)
		p.SetString("task", fmt.Sprintf("resize image %d", i))
		jobs[i] = queue.Job{Payload: p}
	}
	if _, err := q.EnqueueMany(jobs); err != nil {
		return fmt.Errorf("demo %s: %w", name, err)
	}
	claimed, err := q.ClaimMany(n / 2)
	if err != nil {
		return fmt.Errorf("demo %s: %w", name, err)
	}
	ids := make([]string, 0, len(claimed)/2)
	for _, r := range claimed[:len(claimed)/2] {
		ids = append(ids, r.ID)
	}
	if _, err := q.CompleteMany(ids, true); err != nil {
		return fmt.Errorf("demo %s: %w", name, err)
	}
	return nil
}

// demoRecords is how many collection records writeDemo stores for n.
func demoRecords(n int) int64 { return int64(n + n/3 + n/2) }

func demoCollection(root, name string, n int, written *atomic.Int64, defs []docindex.Definition, fill func(int, *phpjson.Array)) error {
	s, err := docstore.Open(root, name, docstore.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	if len(defs) > 0 {
		if err := s.SyncIndexes(defs, true); err != nil {
			return fmt.Errorf("demo %s: %w", name, err)
		}
	}
	for i := range n {
		d := phpjson.NewArray(5)
		fill(i, d)
		if _, err := s.Put(d, ""); err != nil {
			return fmt.Errorf("demo %s: %w", name, err)
		}
		written.Add(1)
	}
	return nil
}
