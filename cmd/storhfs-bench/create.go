package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/uuidv7"
	"github.com/storhfs/storhfs/shard"
)

// createChildArg makes the bench binary a record writer: the mount's
// records are written by a separate process, never by one serving the mount.
const createChildArg = "__create-records"

// firstCreated numbers the created records after the generated ones, so
// their data differs from every stored record.
const firstCreated = 1 << 30

// nativeCreate stores n records in a fresh collection with the core's
// durable Put (temp file, fsync, rename, directory fsync) and counts the
// record files afterwards.
func nativeCreate(root string, n int) side {
	return func(run int) (time.Duration, int64, error) {
		name := fmt.Sprintf("create-n%d", run+1)
		s, err := docstore.Open(root, name, docstore.Options{})
		if err != nil {
			return 0, 0, err
		}
		start := time.Now()
		for i := range n {
			if _, err := s.Put(recordData(firstCreated+i), ""); err != nil {
				s.Close()
				return 0, 0, fmt.Errorf("put %d: %w", i, err)
			}
		}
		elapsed := time.Since(start)
		if err := s.Close(); err != nil {
			return 0, 0, err
		}
		count, err := countRecordFiles(filepath.Join(root, name))
		return elapsed, count, err
	}
}

// mountCreate runs the bench binary as a child that writes n records into
// the mounted collection create-m<run+1>; the time is the child's own.
// root is the storage root behind the mount, where the files are counted.
func mountCreate(self, mountpoint, root string, n int) side {
	return func(run int) (time.Duration, int64, error) {
		name := fmt.Sprintf("create-m%d", run+1)
		cmd := exec.Command(self, createChildArg, filepath.Join(mountpoint, name), strconv.Itoa(n))
		out, err := cmd.Output()
		if err != nil {
			var stderr string
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				stderr = firstLine(string(ee.Stderr))
			}
			return 0, 0, fmt.Errorf("record writer: %w: %s", err, stderr)
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("record writer printed %q: %w", out, err)
		}
		count, err := countRecordFiles(filepath.Join(root, name))
		return time.Duration(ns), count, err
	}
}

// runCreateChild is the child's main: args are DIR N. Each record is
// created with O_EXCL, written in one write(2) and closed; the mount
// commits it durably on close, so close errors count. Prints elapsed ns to out.
func runCreateChild(args []string, out io.Writer) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: %s DIR N", createChildArg)
	}
	dir := args[0]
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return err
	}
	gen := uuidv7.NewGenerator(nil, nil)
	start := time.Now()
	for i := range n {
		id, err := gen.New()
		if err != nil {
			return err
		}
		content, err := recordBytes(id, recordData(firstCreated+i))
		if err != nil {
			return err
		}
		if err := writeNewFile(filepath.Join(dir, id+".jsonc"), content); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	_, err = fmt.Fprintln(out, time.Since(start).Nanoseconds())
	return err
}

func writeNewFile(path string, content []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// countRecordFiles counts the record files of the collection at dir.
func countRecordFiles(dir string) (int64, error) {
	var n int64
	err := shard.Walk(dir, "", func(shard.Entry) error { n++; return nil })
	return n, err
}
