package fusefs

import (
	"errors"
	"os"
	"time"

	"github.com/storhfs/storhfs/shard"
)

// ErrRejected classifies a commit refused because of its content: the
// writer gets EINVAL (other commit failures are EIO, ENOSPC, ...).
var ErrRejected = errors.New("content rejected")

// RecordStore is what the mount needs of one DocStore collection. The real
// implementation is *docstore.Store; fusefs never opens record files itself.
//
// Readers (ListIDs, StatRecord, OpenRecord) take no lock. Mutations take the
// collection write lock inside the store; the mount additionally serialises
// its own mutations per collection (see collectionNode.commitMu).
type RecordStore interface {
	// ListIDs lists every record id in bytewise id order. prev (nil for
	// none) is a former result of this store, whose unchanged parts may be
	// reused without reading (shard.ListIDs); changed reports whether the
	// ids differ from prev's (always true without prev).
	ListIDs(prev *shard.IDList, now time.Time) (list *shard.IDList, changed bool, err error)
	// StatRecord describes the stored record file; an error wrapping
	// os.ErrNotExist when the record is missing.
	StatRecord(id string) (os.FileInfo, error)
	// OpenRecord opens the stored record file read-only.
	OpenRecord(id string) (*os.File, error)
	// PutRaw validates content as the record file for id and stores it
	// verbatim with its index entries. An error wrapping ErrRejected means
	// the content was refused (invalid record, id mismatch, unique
	// violation) and nothing changed; any other error is internal (I/O,
	// disk full, a closed store, indexes left behind a stored record).
	PutRaw(id string, content []byte) error
	// PutRawNew is PutRaw for a record that must not exist yet: checked
	// under the collection write lock, failing with an error wrapping
	// os.ErrExist otherwise.
	PutRawNew(id string, content []byte) error
	// Delete removes the record and its index entries.
	Delete(id string) error
	// SetRecordTimes sets the stored record file's atime and mtime.
	SetRecordTimes(id string, atime, mtime time.Time) error
	Close() error
}

// Kind is what a directory of the storage root holds (README.md,
// "Mounting").
type Kind int

const (
	KindNone      Kind = iota // not shown
	KindNamespace             // holds collections, is none
	KindDocStore              // data/ or .storh/
	KindLog                   // manifest.jsonc with segments/ or partitions/
	KindQueue                 // queue.log
)

// DirEntry is one shown subdirectory of a namespace.
type DirEntry struct {
	Name string
	Kind Kind
}

// Catalog resolves the storage root's directory structure. Paths are
// relative to the storage root, "" being the root itself, "/"-separated.
type Catalog interface {
	// Kind classifies the directory rel (KindNone when missing or hidden).
	Kind(rel string) Kind
	// List returns the shown subdirectories of the namespace rel, sorted by name.
	List(rel string) ([]DirEntry, error)
	// Path is the real directory rel (watched and polled for changes).
	Path(rel string) string
	// Stat describes the real directory rel.
	Stat(rel string) (os.FileInfo, error)
	// OpenDocStore opens the collection rel for the life of the mount;
	// readOnly opens it without sweeping or creating anything.
	OpenDocStore(rel string, readOnly bool) (RecordStore, error)
	// CreateDocStore makes rel an empty DocStore collection.
	CreateDocStore(rel string) error
	// RemoveDocStore removes the collection rel if it holds no records.
	RemoveDocStore(rel string) error
	// OpenLog returns the log rel (KindLog); it reads nothing.
	OpenLog(rel string) LogStore
	// OpenQueue returns the queue rel (KindQueue); it reads nothing.
	OpenQueue(rel string) QueueStore
	// Markers are the entries whose presence makes a directory a
	// collection of some engine ("" is the directory itself).
	Markers() []string
}
