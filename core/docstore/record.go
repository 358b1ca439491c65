package docstore

import (
	"errors"
	"io/fs"
	"slices"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// MaxRecordBytes bounds a record file this package reads or accepts. PHP has
// no limit; anything larger is treated as unreadable rather than exhausting
// memory.
const MaxRecordBytes = 64 << 20

// encodeRecord returns the canonical record bytes (docs/format/docstore.md §2.2):
// {"id":"<id>","data":<J(data)>}\n, the id inserted unescaped (validated).
func encodeRecord(id string, data *phpjson.Array) ([]byte, error) {
	return appendRecord(make([]byte, 0, 64+len(id)), id, data)
}

// appendRecord appends the canonical record bytes to buf.
func appendRecord(buf []byte, id string, data *phpjson.Array) ([]byte, error) {
	buf = append(buf, `{"id":"`...)
	buf = append(buf, id...)
	buf = append(buf, `","data":`...)
	if data == nil {
		data = phpjson.NewArray(0)
	}
	out, err := phpjson.AppendEncode(buf, data)
	if err != nil {
		return nil, err
	}
	return append(out, '}', '\n'), nil
}

// parseRecord validates content as the record file of expectID, exactly as
// PHP reads it (docs/format/docstore.md §2.3), and returns its data (an empty array when the
// data member is missing or not an array). path is used in messages;
// expectValid says the caller has validated expectID (checkRecordID).
func parseRecord(content []byte, expectID, path string, expectValid bool) (*phpjson.Array, error) {
	obj, err := decodeObject(content, path)
	if err != nil {
		return nil, err
	}
	if err := checkRecordID(obj, expectID, expectValid); err != nil {
		return nil, err
	}
	return recordData(obj), nil
}

// checkRecordID checks the record's "id" member: a valid UUIDv7 (else
// ErrInvalidRecord) equal to expectID (else ErrIDMismatch). expectValid
// says the caller has validated expectID, so an equal id needs no check.
func checkRecordID(obj *phpjson.Array, expectID string, expectValid bool) error {
	idv, _ := obj.Lookup("id")
	id, ok := idv.(string)
	if ok && expectValid && id == expectID {
		return nil
	}
	if !ok || !uuidv7.Valid(id) {
		return newError(ErrInvalidRecord, msgInvalidID)
	}
	if id != expectID {
		return newError(ErrIDMismatch, msgIDMismatch)
	}
	return nil
}

// recordData is the record's data: its "data" member when that is an
// array, else the empty array.
func recordData(obj *phpjson.Array) *phpjson.Array {
	if d, ok := obj.Lookup("data"); ok {
		if a, ok := d.(*phpjson.Array); ok {
			return a
		}
	}
	return phpjson.NewArray(0)
}

// readBufPool holds read buffers for withRecordFile. A pooled buffer is
// only lent to the callback; phpjson.Decode copies what it keeps.
var readBufPool = sync.Pool{New: func() any { b := make([]byte, 8192); return &b }}

// recordFile names a record file to read.
type recordFile struct {
	path    string
	idValid bool         // the expected id was validated (Get, GetEach)
	stat    *unix.Stat_t // if set, filled by an fstat of the opened file before it is read (recordcache.go)
}

// withRecordFileStat reads a whole record file (open, fstat into st when st
// is not nil, read to EOF, close) and passes its bytes to fn, which must not
// retain them. A missing file returns an error satisfying errors.Is(err,
// fs.ErrNotExist). Files larger than MaxRecordBytes fail with ErrInvalidRecord.
func withRecordFileStat(path string, st *unix.Stat_t, fn func(content []byte) error) error {
	fd, err := openRecord(path)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if st != nil {
		if err := fstat(fd, st); err != nil {
			return &fs.PathError{Op: "stat", Path: path, Err: err}
		}
	}
	bp := readBufPool.Get().(*[]byte)
	defer readBufPool.Put(bp)
	buf := (*bp)[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= MaxRecordBytes {
				return newError(ErrInvalidRecord, "storage file exceeds the record size limit: "+path)
			}
			buf = slices.Grow(buf, cap(buf))
			if cap(buf) <= 1<<20 {
				*bp = buf // keep moderately grown buffers
			}
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == unix.EINTR:
		case err != nil:
			return &fs.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return fn(buf)
		default:
			buf = buf[:len(buf)+n]
		}
	}
}

// openRecord opens path read-only without following a symlink at any
// component (fsutil.OpenAt: a symlinked record, bucket or collection fails
// with ELOOP instead of showing what it points at). It uses the bare
// descriptor, not an os.File, which would cost a syscall more per record.
func openRecord(path string) (int, error) {
	for {
		fd, err := fsutil.OpenAt(unix.AT_FDCWD, path, unix.O_RDONLY, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, fsutil.PathError("open", path, err)
		}
		return fd, nil
	}
}

// loadRecord reads and validates the record file f for id. A missing file
// gives (nil, 0, nil). size is the file's length when it was read. take,
// if not nil, first sees the content read: when it returns true the record
// is not decoded and the result is (nil, size, nil); take has then used
// the content itself.
func loadRecord(id string, f recordFile, take func(content []byte) bool) (*Record, int, error) {
	var data *phpjson.Array
	size := 0
	var parseErr error
	taken := false
	parse := func(content []byte) error {
		size = len(content)
		if take != nil && take(content) {
			taken, parseErr = true, nil
			return nil
		}
		data, parseErr = parseRecord(content, id, f.path, f.idValid)
		return nil
	}
	err := withRecordFileStat(f.path, f.stat, parse)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, nil
		}
		var pe *phpError
		if errors.As(err, &pe) {
			return nil, 0, err
		}
		return nil, 0, wrapError(ErrInvalidRecord, msgCouldNotRead+f.path, err)
	}
	if parseErr != nil {
		return nil, size, parseErr
	}
	if taken {
		return nil, size, nil
	}
	return &Record{ID: id, Data: data}, size, nil
}

// Get returns the record id, nil when its file does not exist. It takes no
// lock and looks only at the record's own bucket (docs/format/docstore.md §8.2).
// A record read before comes from the record cache when its file is
// unchanged (docs/format/docstore.md §8.7).
func (s *Store) Get(id string) (*Record, error) {
	if err := validID(id); err != nil {
		return nil, err
	}
	rec, _, err := s.loadCached(id, recordFile{path: s.RecordPath(id), idValid: true})
	return rec, err
}
