package docstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"storhfs/shard"
)

// Helpers for the FUSE mount, which never touches collection files itself.

// StatRecord stats the record file of id (errors.Is(err, fs.ErrNotExist)
// when missing). The id is validated.
func (s *Store) StatRecord(id string) (os.FileInfo, error) {
	if err := validID(id); err != nil {
		return nil, err
	}
	return os.Stat(s.RecordPath(id))
}

// OpenRecord opens the record file of id read-only.
func (s *Store) OpenRecord(id string) (*os.File, error) {
	if err := validID(id); err != nil {
		return nil, err
	}
	return os.Open(s.RecordPath(id))
}

// SetRecordTimes sets the access and modification times of the record
// file of id (touch, cp -p, rsync -t). It changes no content, so it takes
// no lock.
func (s *Store) SetRecordTimes(id string, atime, mtime time.Time) error {
	if err := validID(id); err != nil {
		return err
	}
	return os.Chtimes(s.RecordPath(id), atime, mtime)
}

// IsCollection reports whether dir looks like a DocStore collection: it
// has a data/ or .storh/ subdirectory (design.md). Callers distinguish
// SegmentedLog and Queue directories first.
func IsCollection(dir string) bool {
	for _, sub := range []string{"/data", "/.storh"} {
		if fi, err := os.Stat(dir + sub); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// Create makes an empty collection: C, C/data and C/.storh/writers.
func Create(root, collection string) error {
	dir := CollectionDir(root, collection)
	for _, d := range []string{dir, dir + "/data", dir + "/.storh/writers"} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			return fmt.Errorf("create collection %s: %w", dir, err)
		}
	}
	return nil
}

// RemoveEmpty removes a collection that holds no record files: C/data with
// only empty bucket directories, C/.storh (lock, markers, indexes) and C.
// With records it fails with ErrNotEmpty and changes nothing; other files
// in data/ (a live writer's temp file) also give ErrNotEmpty, after empty
// bucket directories may already have been removed.
func RemoveEmpty(root, collection string) error {
	dir := CollectionDir(root, collection)
	if _, err := os.Stat(dir); err != nil {
		return err
	}
	hasRecords := false
	err := shard.Walk(dir, "", func(shard.Entry) error {
		hasRecords = true
		return shard.ErrStop
	})
	if err != nil {
		return fmt.Errorf("remove collection %s: %w", dir, err)
	}
	if hasRecords {
		return fmt.Errorf("remove collection %s: %w", dir, ErrNotEmpty)
	}
	// Anything in data/ besides empty buckets (temp files of a live writer,
	// foreign files) also keeps the collection.
	buckets, err := os.ReadDir(dir + "/data")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove collection %s: %w", dir, err)
	}
	for _, b := range buckets {
		if !b.IsDir() {
			return fmt.Errorf("remove collection %s: %w", dir, ErrNotEmpty)
		}
		if err := os.Remove(dir + "/data/" + b.Name()); err != nil {
			return fmt.Errorf("remove collection %s: %w", dir, ErrNotEmpty)
		}
	}
	if err := os.RemoveAll(dir + "/.storh"); err != nil {
		return fmt.Errorf("remove collection %s: %w", dir, err)
	}
	if err := os.Remove(dir + "/data"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove collection %s: %w", dir, err)
	}
	if err := os.Remove(dir); err != nil {
		return fmt.Errorf("remove collection %s: %w", dir, ErrNotEmpty)
	}
	return nil
}
