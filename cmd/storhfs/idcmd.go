package main

import (
	"bufio"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/uuidv7"
)

func idCommand() *cli.Command {
	return &cli.Command{
		Name:      "id",
		Usage:     "print a fresh UUIDv7 (storh's record id format)",
		ArgsUsage: " ",
		Description: `Prints one new lowercase UUIDv7 per line, generated as storh's
UuidV7::generate() does (monotonic within one millisecond).

Example:
   $ storhfs id
   019a7c3e-5b1f-7d2a-9c41-0e8f3b2a6d10
   $ id=$(storhfs id) && storhfs put var/storh/app pages "$id" < page.jsonc`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "count", Aliases: []string{"n"}, Value: 1, Usage: "how many ids to print (in increasing order)"},
		},
		OnUsageError: onUsageError,
		Action: exitAction(func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErr(c, "id takes no arguments")
			}
			n := c.Int("count")
			if n < 1 {
				return usageErr(c, "--count must be at least 1")
			}
			gen := uuidv7.NewGenerator(nil, nil)
			w := bufio.NewWriter(c.App.Writer)
			for i := 0; i < n; i++ {
				id, err := gen.New()
				if err != nil {
					return err
				}
				w.WriteString(id)
				w.WriteByte('\n')
			}
			return w.Flush()
		}),
	}
}
