package docstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/shard"
)

// Helpers for the FUSE mount, which never touches collection files itself.

// StatRecord stats the record file of id (errors.Is(err, fs.ErrNotExist)
// when missing). The id is validated.
func (s *Store) StatRecord(id string) (os.FileInfo, error) {
	if err := validID(id); err != nil {
		return nil, err
	}
	return fsutil.Stat(s.RecordPath(id))
}

// OpenRecord opens the record file of id read-only.
func (s *Store) OpenRecord(id string) (*os.File, error) {
	if err := validID(id); err != nil {
		return nil, err
	}
	return fsutil.OpenFile(s.RecordPath(id), os.O_RDONLY, 0)
}

// SetRecordTimes sets the access and modification times of the record
// file of id (touch, cp -p, rsync -t). It changes no content, so it takes
// no lock.
func (s *Store) SetRecordTimes(id string, atime, mtime time.Time) error {
	if err := validID(id); err != nil {
		return err
	}
	return fsutil.Chtimes(s.RecordPath(id), atime, mtime)
}

// ListIDs lists the record ids like WalkIDs, re-reading only the bucket
// directories that changed since prev (shard.ListIDs).
func (s *Store) ListIDs(prev *shard.IDList, now time.Time) (*shard.IDList, bool, error) {
	return shard.ListIDs(s.dir, prev, now)
}

// The folders that make a directory a collection (docs/format/docstore.md §1).
const (
	DataDirName  = shard.DataDirName // the record buckets
	StateDirName = ".storh"          // lock, writer markers, indexes
)

// IsCollection reports whether dir looks like a DocStore collection: it
// has a data/ or .storh/ subdirectory (README.md,
// "Mounting"). Callers distinguish
// SegmentedLog and Queue directories first.
func IsCollection(dir string) bool {
	for _, sub := range []string{DataDirName, StateDirName} {
		if fi, err := fsutil.Stat(dir + "/" + sub); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// Create makes an empty collection: C, C/data and C/.storh/writers.
func Create(root, collection string) error {
	dir := CollectionDir(root, collection)
	for _, d := range []string{dir, dir + "/data", dir + "/.storh/writers"} {
		if err := fsutil.MkdirAll(d); err != nil {
			return fmt.Errorf("create collection %s: %w", dir, err)
		}
	}
	return nil
}

// ErrBusy: RemoveEmpty found the writer marker of another live process;
// that process may still use the collection's lock file. It unwraps to
// syscall.EBUSY.
var ErrBusy error = &kind{name: "collection is in use by another writer", parent: syscall.EBUSY}

// RemoveEmpty removes a collection that holds no record files: C/data with
// only empty bucket directories, C/.storh (lock, markers, indexes) and C.
// It runs under the collection write lock and decides emptiness under it,
// so no writer of this or another process is mid-put. Anything else in
// the collection (records, a live writer's temp file, quarantined records
// in .storh/corrupt, a foreign file such as a README beside data/) fails
// with ErrNotEmpty naming it, and nothing is removed. The lock file is deleted only when no
// other live process has a writer marker (else ErrBusy): docs/format/docstore.md §6 forbids
// deleting it while others may use it. Markers of this process are ours
// to drop (the caller closes its own stores afterwards).
func RemoveEmpty(root, collection string) (err error) {
	dir := CollectionDir(root, collection)
	if _, err := fsutil.Stat(dir); err != nil {
		return err
	}
	lock, err := fsutil.OpenLock(dir+"/.storh/write.lock", os.O_RDWR)
	if err != nil {
		return wrapError(nil, msgLockOpen, err)
	}
	defer lock.Close()
	if err := lock.Lock(); err != nil {
		return wrapError(nil, msgLock, err)
	}
	defer lock.UnlockInto(&err)
	if err := removeEmptyLocked(dir); err != nil {
		return fmt.Errorf("remove collection %s: %w", dir, err)
	}
	return nil
}

func removeEmptyLocked(dir string) error {
	if err := checkRemovable(dir); err != nil {
		return err
	}
	if err := checkNoOtherWriters(dir); err != nil {
		return err
	}
	buckets, err := fsutil.ReadDir(dir + "/data")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, b := range buckets {
		if err := removeDir(dir+"/data/"+b.Name(), "data/"+b.Name()); err != nil {
			return err
		}
	}
	if err := fsutil.RemoveAll(dir + "/.storh"); err != nil {
		return err
	}
	if err := fsutil.Remove(dir + "/data"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return removeDir(dir, dir)
}

// removeDir removes the directory path; what names it in an ErrNotEmpty
// (something was added since checkRemovable). Any other failure is
// returned as it is: a permission or I/O error is not "not empty".
func removeDir(path, what string) error {
	err := fsutil.Remove(path)
	if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
		return notEmpty(what, err)
	}
	return err
}

// checkRemovable fails with ErrNotEmpty, naming the first thing found,
// unless dir holds only data/ with empty bucket directories and .storh/
// without quarantined records: what an empty collection is made of.
func checkRemovable(dir string) error {
	hasRecords := false
	err := shard.Walk(dir, "", func(shard.Entry) error {
		hasRecords = true
		return shard.ErrStop
	})
	if err != nil {
		return err
	}
	if hasRecords {
		return notEmpty("records", nil)
	}
	entries, err := fsutil.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if name := e.Name(); name != "data" && name != ".storh" {
			return notEmpty(name, nil)
		}
	}
	buckets, err := fsutil.ReadDir(dir + "/data")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, b := range buckets {
		if !b.IsDir() {
			return notEmpty("data/"+b.Name(), nil)
		}
		name, err := firstEntry(dir + "/data/" + b.Name())
		if err != nil {
			return err
		}
		if name != "" {
			return notEmpty("data/"+b.Name()+"/"+name, nil)
		}
	}
	name, err := firstEntry(dir + "/.storh/corrupt")
	if err != nil {
		return err
	}
	if name != "" {
		return notEmpty(".storh/corrupt/"+name+" (a quarantined record)", nil)
	}
	return nil
}

// firstEntry returns the name of one entry of dir, "" when dir is empty or
// missing.
func firstEntry(dir string) (string, error) {
	f, err := fsutil.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if len(names) > 0 {
		return names[0], nil
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return "", err
}

// notEmpty is ErrNotEmpty naming what keeps the collection; cause, when
// not nil, is the failure that showed it.
func notEmpty(what string, cause error) error {
	return wrapError(ErrNotEmpty, msgCollectionExists+": holds "+what, cause)
}

// checkNoOtherWriters fails with ErrBusy when C/.storh/writers holds the
// marker of a live process other than this one (on a shared file system
// every well-formed marker counts as live: fsutil.Hosts).
func checkNoOtherWriters(dir string) error {
	markers, err := fsutil.ReadDir(fsutil.WritersDir(dir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	self := strconv.Itoa(os.Getpid()) + "."
	for _, m := range markers {
		if strings.HasPrefix(m.Name(), self) {
			continue
		}
		if fsutil.DetectHosts.MarkerLive(dir, m.Name()) {
			return fmt.Errorf("marker %s: %w", m.Name(), ErrBusy)
		}
	}
	return nil
}
