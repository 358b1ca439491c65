package docindex

import (
	"errors"
	"io"
	"os"

	"github.com/storhfs/storhfs/core/fsutil"
)

// headSize is how much of an entry file is read first when only its start
// is needed (the stored count; the position of the id list). A canonical
// head `{"field":..,"key":..,"count":..,"value":..,"ids":[` is far shorter
// unless the field name or a string value is long; then the read grows.
const headSize = 4096

// entryFile is one open equality or compound entry file, read from offset 0
// on demand. Readers take no lock: writers replace entry files by atomic
// rename and never modify them in place, so every read of one descriptor
// sees the same content.
type entryFile struct {
	f    *os.File
	size int64  // from fstat (openEntry with stat): fixedIDList checks its layout against it
	text []byte // the first len(text) bytes of the file
	eof  bool   // text is the whole file
}

// openEntry opens path; with stat it also learns the file's size (0
// without). A file that is absent for PHP's is_file() (missing, vanished,
// not a regular file) gives (nil, nil); any other failure is "Could not
// read equality index: <path>". Without stat a directory is only noticed
// when read: readFailure then reports it absent.
func openEntry(path string, stat bool) (*entryFile, error) {
	f, err := fsutil.Open(path)
	if err != nil {
		return nil, readFailure(path, err)
	}
	e := &entryFile{f: f}
	if !stat {
		return e, nil
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err != nil {
		f.Close()
		return nil, readFailure(path, err)
	}
	e.size = fi.Size()
	return e, nil
}

func (e *entryFile) close() { e.f.Close() }

// readFailure is nil when path counts as absent, else the PHP read error.
func readFailure(path string, err error) error {
	if absent(path, err) {
		return nil
	}
	return errReadEquality(path, err)
}

// readTo extends text to the first n bytes of the file (fewer at its end).
// Its errors are the read's own; callers map them with readFailure.
func (e *entryFile) readTo(n int) error {
	if e.eof || len(e.text) >= n {
		return nil
	}
	if cap(e.text) < n {
		grown := make([]byte, len(e.text), n)
		copy(grown, e.text)
		e.text = grown
	}
	for len(e.text) < n {
		m, err := e.f.ReadAt(e.text[len(e.text):n], int64(len(e.text)))
		e.text = e.text[:len(e.text)+m]
		if errors.Is(err, io.EOF) {
			e.eof = true
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// scan runs fn over a growing prefix of the file, starting with headSize
// bytes, until fn decides (it always does on the whole file).
func (e *entryFile) scan(fn func(text []byte, whole bool) scanResult) (scanResult, error) {
	n := headSize
	for {
		if err := e.readTo(n); err != nil {
			return 0, err
		}
		if res := fn(e.text, e.eof); res != scanUndecided || e.eof {
			return res, nil
		}
		n *= 4
	}
}
