package main

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/docstore"
)

// Record-level commands that write through the core, as another process
// would while a mount is live (used by the integration tests).

func putCommand() *cli.Command {
	return &cli.Command{
		Name:         "put",
		Usage:        "store standard input verbatim as record ID (a JSONC object whose id is ID)",
		ArgsUsage:    "ROOT COLLECTION ID",
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 3 {
				return usageError(c, "need ROOT, COLLECTION and ID")
			}
			content, err := io.ReadAll(os.Stdin)
			if err != nil {
				return err
			}
			return withStore(c, func(s *docstore.Store) error {
				return s.PutRaw(c.Args().Get(2), content)
			})
		},
	}
}

func deleteCommand() *cli.Command {
	return &cli.Command{
		Name:         "delete",
		Usage:        "delete record ID and its index entries",
		ArgsUsage:    "ROOT COLLECTION ID",
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 3 {
				return usageError(c, "need ROOT, COLLECTION and ID")
			}
			return withStore(c, func(s *docstore.Store) error {
				return s.Delete(c.Args().Get(2))
			})
		},
	}
}

// withStore opens ROOT/COLLECTION (arguments 0 and 1), runs fn and closes
// it. A log or queue collection is refused.
func withStore(c *cli.Context, fn func(*docstore.Store) error) error {
	root, collection := storageRoot(c.Args().Get(0)), c.Args().Get(1)
	if err := checkRoot(root); err != nil {
		return err
	}
	if err := checkDocTarget(root, collection, false); err != nil {
		return err
	}
	s, err := docstore.Open(root, collection, docstore.Options{})
	if err != nil {
		return err
	}
	err = fn(s)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}
