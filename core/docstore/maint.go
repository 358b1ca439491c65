package docstore

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"time"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// statsCounts is the stats() result before it becomes a PHP array.
type statsCounts struct {
	records, bytes, corrupt, indexes int64
}

func (c statsCounts) array() *phpjson.Array {
	a := phpjson.NewArray(4)
	a.SetString("records", c.records)
	a.SetString("bytes", c.bytes)
	a.SetString("corrupt", c.corrupt)
	a.SetString("indexes", c.indexes)
	return a
}

// freshStats re-reads the manifest (a read-only maintenance call sees
// definitions PHP added since the open) and counts the records.
func (s *Store) freshStats() (statsCounts, error) {
	if err := s.idx.Reload(); err != nil {
		return statsCounts{}, err
	}
	return s.countStats()
}

func (s *Store) countStats() (statsCounts, error) {
	var c statsCounts
	err := s.scanRecords("", nil, func(r *scanned) error {
		size := r.size
		switch {
		case r.err != nil:
			c.corrupt++
			if size == 0 {
				if fi, serr := fsutil.Stat(r.path); serr == nil {
					size = int(fi.Size())
				}
			}
		case r.rec != nil:
			c.records++
		}
		c.bytes += int64(size)
		return nil
	})
	if err != nil {
		return c, err
	}
	c.indexes = int64(len(s.idx.Definitions()))
	return c, nil
}

// Stats returns {"records","bytes","corrupt","indexes"} (docs/format/docstore.md §9.1). No lock.
func (s *Store) Stats() (*phpjson.Array, error) {
	c, err := s.freshStats()
	if err != nil {
		return nil, err
	}
	return c.array(), nil
}

// Verify returns {"ok","errors","stats"} (docs/format/docstore.md §9.2): corrupt records, or
// else the index check against the record files. No lock.
func (s *Store) Verify() (*phpjson.Array, error) {
	c, err := s.freshStats()
	if err != nil {
		return nil, err
	}
	var problems []string
	if c.corrupt > 0 {
		problems = []string{"Corrupt records: " + strconv.FormatInt(c.corrupt, 10)}
	} else if c.indexes > 0 {
		rep, err := s.idx.Verify(s.recordSource())
		if err != nil {
			return nil, err
		}
		problems = rep.Errors
	}
	errs := phpjson.NewArray(len(problems))
	for _, p := range problems {
		errs.Append(p)
	}
	a := phpjson.NewArray(3)
	a.SetString("ok", len(problems) == 0)
	a.SetString("errors", errs)
	a.SetString("stats", c.array())
	return a, nil
}

// Health is Verify (PHP's health() and verify() are identical).
func (s *Store) Health() (*phpjson.Array, error) { return s.Verify() }

// Compact returns {"ok":true,"records":<stats records>}; nothing changes.
func (s *Store) Compact() (*phpjson.Array, error) {
	c, err := s.countStats()
	if err != nil {
		return nil, err
	}
	a := phpjson.NewArray(2)
	a.SetString("ok", true)
	a.SetString("records", c.records)
	return a, nil
}

// recordSource yields every record read from the files in id order and
// stops with the first unreadable one's error (reindex semantics).
func (s *Store) recordSource() docindex.RecordSource {
	return func(yield func(id string, data *phpjson.Array) error) error {
		return s.scanRecords("", nil, func(r *scanned) error {
			if r.err != nil {
				return r.err
			}
			if r.rec == nil {
				return nil
			}
			return yield(r.id, r.rec.Data)
		})
	}
}

// Reindex rebuilds every index from the record files under the write lock
// and returns {"fields","entries"} (docs/format/docstore.md §9.4). A corrupt record fails it
// after entries/ was already cleared, as in PHP.
func (s *Store) Reindex() (*phpjson.Array, error) {
	var out *phpjson.Array
	err := s.withWriteLock(func() error {
		var err error
		out, err = s.reindexLocked()
		return err
	})
	return out, err
}

func (s *Store) reindexLocked() (*phpjson.Array, error) {
	fields, entries, err := s.idx.Rebuild(s.recordSource())
	if err != nil {
		return nil, err
	}
	a := phpjson.NewArray(2)
	a.SetString("fields", int64(fields))
	a.SetString("entries", int64(entries))
	return a, nil
}

// Repair, under the write lock: sweeps orphaned temp files over the whole
// collection, quarantines every unreadable record file into
// C/.storh/corrupt/, then reindexes. Returns
// {"ok":true,"quarantined":n,"reindexed":{"fields","entries"}} (docs/format/docstore.md §9.3).
func (s *Store) Repair() (*phpjson.Array, error) {
	var out *phpjson.Array
	err := s.withWriteLock(func() error {
		s.hosts.SweepTemps(s.dir, time.UnixMilli(s.nowMs()))
		s.hosts.SweepIndexTemps(s.dir) // we hold the lock: no index temp is live
		var bad []string
		err := s.scanRecords("", nil, func(r *scanned) error {
			if r.err != nil {
				bad = append(bad, r.path)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, path := range bad {
			if err := s.quarantine(path); err != nil {
				return err
			}
		}
		re, err := s.reindexLocked()
		if err != nil {
			return err
		}
		out = phpjson.NewArray(3)
		out.SetString("ok", true)
		out.SetString("quarantined", int64(len(bad)))
		out.SetString("reindexed", re)
		return nil
	})
	return out, err
}

// quarantine moves a record file to C/.storh/corrupt/<basename>, or to
// <id>-<hex8>.jsonc when that name is taken (docs/format/docstore.md §4.5).
func (s *Store) quarantine(path string) error {
	qdir := s.dir + "/.storh/corrupt"
	if err := fsutil.MkdirAll(qdir); err != nil {
		return wrapError(nil, msgQuarantine+path, err)
	}
	base := filepath.Base(path)
	target := qdir + "/" + base
	if _, err := fsutil.Stat(target); err == nil {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return wrapError(nil, msgQuarantine+path, err)
		}
		id := base[:len(base)-len(".jsonc")]
		target = qdir + "/" + id + "-" + hex.EncodeToString(b[:]) + ".jsonc"
	} else if !errors.Is(err, fs.ErrNotExist) {
		return wrapError(nil, msgQuarantine+path, err)
	}
	if err := fsutil.Rename(path, target); err != nil {
		return wrapError(nil, msgQuarantine+path, err)
	}
	_ = fsutil.FsyncDir(filepath.Dir(path))
	_ = fsutil.FsyncDir(qdir)
	return nil
}

// SyncIndexes adds definitions to the manifest (flags OR-ed with existing
// ones) and writes it; with rebuild, rebuilds when the definitions changed
// (PHP indexes()->field(...)->sync(rebuild), docs/format/indexes.md §10).
func (s *Store) SyncIndexes(defs []docindex.Definition, rebuild bool) error {
	return s.withWriteLock(func() error {
		if err := s.idx.Define(defs); err != nil {
			return err
		}
		return s.idx.Sync(rebuild, s.recordSource())
	})
}
