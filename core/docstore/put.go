package docstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// Put writes data under id (a new generated id when id is ""), replacing
// any existing record, and returns the record with data as passed
// (docs/format/docstore.md §8.1, order of operations §7).
func (s *Store) Put(data *phpjson.Array, id string) (Record, error) {
	if data == nil {
		data = phpjson.NewArray(0)
	}
	if id != "" {
		if err := validID(id); err != nil {
			return Record{}, err
		}
	}
	var rec Record
	err := s.withWriteLock(func() error {
		var err error
		rec, err = s.putLocked(data, id, id != "")
		return err
	})
	return rec, err
}

// putLocked is one put under the write lock. A non-explicit id is
// generated (and assumed new: no old lookup).
func (s *Store) putLocked(data *phpjson.Array, id string, explicit bool) (Record, error) {
	return s.writeLocked(recordWrite{id: id, explicit: explicit, data: data})
}

// recordWrite is one record write: what every writer (Put, PutMany,
// PutStream, ImportJSONL, the mount's PutRaw) hands to writeLocked. The
// zero options are PHP's put; the mount's differences are named.
type recordWrite struct {
	id       string
	explicit bool // false: id is generated, assumed new (no old lookup)
	data     *phpjson.Array
	raw      []byte // stored verbatim (JSONL form A, the mount); nil: encodeRecord

	// mustBeNew: an existing record file fails with fs.ErrExist (O_EXCL
	// through the mount).
	mustBeNew bool
	// corruptOldIsAbsent: an unreadable old record counts as absent, so a
	// corrupt record can be fixed by rewriting it; its stale index entries,
	// if any, are left for verify/repair. PHP's put fails instead.
	corruptOldIsAbsent bool
	// refuseUnindexable: an indexed field holding a value the index files
	// cannot hold (INF or NaN: JSON has neither) fails with ErrInvalidRecord
	// before anything is written. PHP stores a verbatim import line and
	// then fails the index update (drift); its put never gets that far,
	// since encoding the record fails first.
	refuseUnindexable bool
}

// writeLocked is the one record write path, under the write lock. Its
// order is docs/format/docstore.md §7:
//
//  1. (indexes active, explicit id) read the old record: its entries are
//     the ones to remove; a corrupt one fails the write (unless
//     corruptOldIsAbsent) before anything is written;
//  2. the unique check (docs/format/indexes.md §6);
//  3. the record file written and renamed: the commit point;
//  4. the old value's index entries removed, the new value's added.
//
// A failure before 3 changed nothing. A failure in 4 leaves the new record
// with missing or stale index entries: it is errors.Is(err,
// ErrIndexDrift) with the cause's text, verify reports the drift, repair
// or reindex rebuilds the entries. A crash in 3 before the rename leaves a
// pid-named temp file that the next open's sweep removes once the pid is
// dead; a crash in 4 is the same drift. Readers take no lock, so between
// 3 and 4 a query may miss the record, never return a wrong one.
func (s *Store) writeLocked(w recordWrite) (Record, error) {
	if !w.explicit {
		var err error
		if w.id, err = s.generateID(); err != nil {
			return Record{}, err
		}
	}
	path := s.RecordPath(w.id)
	if w.mustBeNew {
		if _, err := fsutil.Stat(path); err == nil {
			return Record{}, fmt.Errorf("record file %s: %w", path, fs.ErrExist)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return Record{}, err
		}
	}
	var old *phpjson.Array
	if s.idx.Active() {
		if w.refuseUnindexable {
			if err := s.checkIndexable(w.data); err != nil {
				return Record{}, err
			}
		}
		if w.explicit {
			rec, _, err := loadRecord(w.id, recordFile{path: path}, nil)
			if err != nil && !w.corruptOldIsAbsent {
				return Record{}, err
			}
			if err == nil && rec != nil {
				old = rec.Data
			}
		}
		if err := s.idx.CheckUnique(w.id, w.data); err != nil {
			return Record{}, err
		}
	}
	content := w.raw
	if content == nil {
		var err error
		if content, err = encodeRecord(w.id, w.data); err != nil {
			return Record{}, err
		}
	}
	dirSync, err := s.writeRecordFile(path, content)
	if err != nil {
		return Record{}, err
	}
	if s.idx.Active() {
		if err := s.idx.UpdateRecord(w.id, old, w.data); err != nil {
			return Record{}, indexDrift{err}
		}
	}
	return Record{ID: w.id, Data: w.data}, dirSync
}

// writeRecordFile writes a record file (fsutil.WriteFileDurable). err is
// a failure that left the stored record as it was. dirSync is the failed
// fsync of the bucket directory after the record was renamed into place
// (wrapping fsutil.ErrDirSync), nil unless Options.DirSyncErrors: the
// caller updates the indexes of the stored record, then reports it.
func (s *Store) writeRecordFile(path string, content []byte) (dirSync, err error) {
	err = s.writer.WriteFileDurable(path, content)
	if errors.Is(err, fsutil.ErrDirSync) {
		if s.dirSync {
			return fmt.Errorf("record %s stored: %w", path, err), nil
		}
		return nil, nil
	}
	return nil, err
}

// generateID returns the next generated id; a caller's generator is
// validated like an explicit id (8.1).
func (s *Store) generateID() (string, error) {
	id, err := s.newID()
	if err != nil {
		return "", err
	}
	if s.custom {
		if err := validID(id); err != nil {
			return "", err
		}
	}
	return id, nil
}

// ErrIndexDrift: a record file was written but updating its index entries
// failed afterwards, so indexes and records disagree until repair or
// reindex. Not a content rejection: the record IS stored.
var ErrIndexDrift = errors.New("record stored, but its index entries could not be updated; run repair")

// indexDrift is a failed step 4 of writeLocked: errors.Is ErrIndexDrift
// and its cause, with the cause's text (PHP's, which the engine API keeps).
type indexDrift struct{ cause error }

func (e indexDrift) Error() string   { return e.cause.Error() }
func (e indexDrift) Unwrap() []error { return []error{ErrIndexDrift, e.cause} }

// PutRaw stores content verbatim as the record file of id, for the mount.
// content must be a record PHP's get() would accept for that file name
// (docs/format/docstore.md §2.3: strict JSON, else JSONC; an object whose "id" equals id, a
// valid UUIDv7) and read back as written: exactly "id" and "data", data an
// object or a list (parseWritable). It must be smaller than MaxRecordBytes
// (what the reader accepts).
// Indexes are updated from the parsed data under the write lock; a unique
// violation, or an indexed value that cannot be encoded into an index file
// (a float like 1e999, decoded as INF), fails before anything is written.
// Errors are errors.Is-able (ErrInvalidID, ErrInvalidRecord, ErrIDMismatch,
// ErrUniqueViolation) and their text starts with the id. A failure after
// the record file was written is errors.Is(err, ErrIndexDrift) and says so.
//
// Unlike PHP's put, an existing record file that is unreadable is treated
// as absent (recordWrite.corruptOldIsAbsent).
func (s *Store) PutRaw(id string, content []byte) error {
	return s.putRaw(id, content, false)
}

// PutRawNew is PutRaw for a record that must not exist yet: the check runs
// under the write lock, and an existing record file fails with an error
// wrapping fs.ErrExist, changing nothing.
func (s *Store) PutRawNew(id string, content []byte) error {
	return s.putRaw(id, content, true)
}

func (s *Store) putRaw(id string, content []byte, mustBeNew bool) error {
	if err := validID(id); err != nil {
		return withID(id, err)
	}
	if len(content) >= MaxRecordBytes {
		return withID(id, newError(ErrInvalidRecord, fmt.Sprintf("record of %d bytes is not below the record size limit of %d bytes", len(content), MaxRecordBytes)))
	}
	data, err := parseWritable(content, id, s.RecordPath(id))
	if err != nil {
		return withID(id, err)
	}
	w := recordWrite{id: id, explicit: true, data: data, raw: bytes.Clone(content),
		mustBeNew: mustBeNew, corruptOldIsAbsent: true, refuseUnindexable: true}
	return withID(id, s.withWriteLock(func() error {
		_, err := s.writeLocked(w)
		return err
	}))
}

// checkIndexable fails with ErrInvalidRecord when an indexed field of data
// holds a value the index files cannot hold (JSON has no INF or NaN).
func (s *Store) checkIndexable(data *phpjson.Array) error {
	var buf []byte
	for _, d := range s.idx.Definitions() {
		v, ok := data.Lookup(d.Field)
		if !ok {
			continue
		}
		switch v.(type) {
		case nil, bool, int64, float64, string: // indexed (docs/format/indexes.md §4)
		default:
			continue
		}
		var err error
		if buf, err = phpjson.AppendEncode(buf[:0], v); err != nil {
			return wrapError(ErrInvalidRecord, fmt.Sprintf("indexed field %q holds a value the index cannot store", d.Field), err)
		}
	}
	return nil
}

// Delete removes the record id and its index entries; a missing record is
// a no-op. With active indexes the old file is read first, so a corrupt
// record cannot be deleted (docs/format/docstore.md §8.3).
func (s *Store) Delete(id string) error {
	if err := validID(id); err != nil {
		return err
	}
	return s.withWriteLock(func() error { return s.deleteLocked(id) })
}

func (s *Store) deleteLocked(id string) error {
	path := s.RecordPath(id)
	if !s.idx.Active() {
		return removeRecordFile(id, path)
	}
	rec, _, err := loadRecord(id, recordFile{path: path}, nil)
	if err != nil {
		return err
	}
	if rec == nil {
		return nil
	}
	if err := removeRecordFile(id, path); err != nil {
		return err
	}
	return s.idx.RemoveRecord(id, rec.Data)
}

// removeRecordFile unlinks a record file (plain unlink, no directory fsync,
// docs/format/docstore.md §4.4); a missing file is fine.
func removeRecordFile(id, path string) error {
	err := fsutil.Unlink(path)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return wrapError(nil, msgCouldNotDelete+id, err)
}

// PutMany writes rows in order under one lock hold and returns the records
// (docs/format/docstore.md §8.1 row forms). A failing row returns its error; earlier rows stay
// written.
func (s *Store) PutMany(rows []phpjson.Value) ([]Record, error) {
	out := make([]Record, 0, len(rows))
	err := s.withWriteLock(func() error {
		for _, row := range rows {
			rec, err := s.putRowLocked(row)
			if err != nil {
				return err
			}
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PutStream writes the rows produced by next (ok=false ends) under one lock
// hold and returns how many were written.
func (s *Store) PutStream(next func() (row phpjson.Value, ok bool, err error)) (int, error) {
	n := 0
	err := s.withWriteLock(func() error {
		for {
			row, ok, err := next()
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			if _, err := s.putRowLocked(row); err != nil {
				return err
			}
			n++
		}
	})
	return n, err
}

// putRowLocked interprets one bulk row: a string "id" member is the id
// (else generated); an array "data" member is the data, else the whole row
// is (quirk: including its id member). A non-array row is empty data.
func (s *Store) putRowLocked(row phpjson.Value) (Record, error) {
	id, explicit, data := splitRow(row)
	if explicit {
		if err := validID(id); err != nil {
			return Record{}, err
		}
	}
	return s.putLocked(data, id, explicit)
}

func splitRow(row phpjson.Value) (id string, explicit bool, data *phpjson.Array) {
	arr, ok := row.(*phpjson.Array)
	if !ok {
		return "", false, phpjson.NewArray(0)
	}
	if v, ok := arr.Lookup("id"); ok {
		id, explicit = v.(string)
	}
	if v, ok := arr.Lookup("data"); ok {
		if d, ok := v.(*phpjson.Array); ok {
			return id, explicit, d
		}
	}
	return id, explicit, arr
}
