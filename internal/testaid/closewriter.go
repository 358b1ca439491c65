package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/uuidv7"
)

// closeWriterCommand creates new records in a mounted
// collection folder one after another, each opened with O_EXCL, written in
// a few write(2) calls and closed, and prints what each close(2) answered:
//
//	<id> <n> ok                    close succeeded
//	<id> <n> close-failed <error>  close failed
//	<id> <n> write-failed <error>  a write failed (the close is reported on the next line)
//	<id> <n> open-failed <error>   open failed; the writer stops
//	<id> <n> holding               with --pause: the first write is done; a line on stdin resumes
//
// Record n's content is closeWriterContent(writer, n, id). With --pause the
// writer waits after its first write of each record until it reads a line
// from stdin (or stdin ends), so a test can hold a record open as long as
// it needs. The shutdown
// tests compare these answers with what the storage root holds.
func closeWriterCommand() *cli.Command {
	return &cli.Command{
		Name: "close-writer", ArgsUsage: "COLLECTION_DIR",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "writer", Usage: "this writer's number, part of each record"},
			&cli.IntFlag{Name: "max", Value: 10000, Usage: "stop after this many records"},
			&cli.BoolFlag{Name: "pause", Usage: "after the first write of each record, wait for a line on stdin"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(c, "need COLLECTION_DIR")
			}
			return writeUntilRefused(c.Args().Get(0), c.Int("writer"), c.Int("max"), c.Bool("pause"))
		},
	}
}

// closeWriterContent is the record the close-writer writes as record n.
func closeWriterContent(writer, n int, id string) string {
	return fmt.Sprintf(`{"id":%q,"data":{"writer":%d,"n":%d,"pad":%q}}`, id, writer, n, strings.Repeat("x", 2000))
}

func writeUntilRefused(dir string, writer, max int, pause bool) error {
	gen := uuidv7.NewGenerator(nil, nil)
	stdin := bufio.NewReader(os.Stdin)
	say := func(format string, args ...any) { fmt.Fprintf(os.Stdout, format+"\n", args...) }
	for n := range max {
		id, err := gen.New()
		if err != nil {
			return err
		}
		fd, err := unix.Open(filepath.Join(dir, id+".jsonc"), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
		if err != nil {
			say("%s %d open-failed %s", id, n, errText(err))
			return nil
		}
		content := []byte(closeWriterContent(writer, n, id))
		third := len(content) / 3
		for i, chunk := range [][]byte{content[:third], content[third : 2*third], content[2*third:]} {
			if i == 1 && pause {
				say("%s %d holding", id, n)
				stdin.ReadString('\n')
			}
			if err := writeAll(fd, chunk); err != nil {
				say("%s %d write-failed %s", id, n, errText(err))
				break
			}
		}
		if err := unix.Close(fd); err != nil {
			say("%s %d close-failed %s", id, n, errText(err))
		} else {
			say("%s %d ok", id, n)
		}
	}
	return nil
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// errText names an errno by its constant (ENOTCONN), or the error's text.
func errText(err error) string {
	var errno unix.Errno
	if errors.As(err, &errno) {
		if name := unix.ErrnoName(errno); name != "" {
			return name
		}
	}
	return strings.ReplaceAll(err.Error(), " ", "_")
}
