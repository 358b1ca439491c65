package main

import (
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/urfave/cli/v2"

	"storhfs/core/docindex"
	"storhfs/core/docstore"
	"storhfs/core/phpjson"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:      "demo",
		Usage:     "create a small demo storage root (collections, a namespace, an index manifest)",
		ArgsUsage: "ROOT",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "records", Value: 300, Usage: "records in the biggest collection"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(c, "need ROOT")
			}
			root := c.Args().Get(0)
			if entries, err := os.ReadDir(root); err == nil && len(entries) > 0 {
				return fmt.Errorf("demo root %s exists and is not empty", root)
			}
			n := c.Int("records")
			if err := writeDemo(root, n); err != nil {
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
func writeDemo(root string, n int) error {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []string{"page", "post", "draft"}
	err := demoCollection(root, "pages", n, []docindex.Definition{
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
	err = demoCollection(root, "notes", n/3, nil, func(i int, d *phpjson.Array) {
		d.SetString("text", fmt.Sprintf("note %d: remember to water plant %d", i, rng.IntN(20)))
		d.SetString("done", i%4 == 0)
	})
	if err != nil {
		return err
	}
	return demoCollection(root, "app/users", n/2, []docindex.Definition{{Field: "email", Unique: true}},
		func(i int, d *phpjson.Array) {
			d.SetString("name", fmt.Sprintf("User %d", i))
			d.SetString("email", fmt.Sprintf("user%d@example.org", i))
			d.SetString("age", int64(18+rng.IntN(60)))
		})
}

func demoCollection(root, name string, n int, defs []docindex.Definition, fill func(int, *phpjson.Array)) error {
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
	}
	return nil
}
