package fusefs

import (
	"errors"
	"io/fs"
)

// The mount shows SegmentedLogs and Queues read-only through the
// interfaces below, as it reaches DocStore through RecordStore: fusefs
// knows no log or queue file format and no on-disk name. The real
// implementations wrap core/seglog and core/queue (internal/engines).
//
// Every reader here takes no lock and never writes, truncates or repairs
// anything: another process (storh) may be writing the log or queue
// meanwhile. A missing directory or file is an error wrapping
// fs.ErrNotExist.

// LogBackend finds and opens SegmentedLogs.
type LogBackend interface {
	// IsCollection reports whether dir holds a log or a partitioned log.
	// It creates nothing and follows no symlink.
	IsCollection(dir string) bool
	// Markers are the entries of a directory whose presence makes it a
	// log (IsCollection looks for them).
	Markers() []string
	// Open returns the log directory dir: a log, a partitioned log, or one
	// partition. It reads nothing; every method reads the disk anew.
	Open(dir string) LogStore
}

// LogStore is what the mount needs of one log directory.
type LogStore interface {
	// Dir is the log directory on disk (its attributes are the folder's).
	Dir() string
	// HasRecords reports whether the directory holds a log of its own
	// (a manifest), shown as records.ndjson and segments/; a partitioned
	// log's top directory may hold only partitions.
	HasRecords() bool
	// Partitions lists the partitions, sorted by name (date partitions
	// sort by time); none when the log is not partitioned.
	Partitions() []string
	// IsPartition reports whether name is one of Partitions.
	IsPartition(name string) bool
	// Partition opens partition name (which need not exist).
	Partition(name string) LogStore
	// StateFiles stats the files the log's content is read from: the
	// manifest first, then each segment file present. A change of any of
	// them (size, mtime, inode) is a change of the log; equal stats mean
	// an unchanged log, so the mount takes no new snapshot.
	StateFiles() ([]LogFile, error)
	// StateFile stats one of StateFiles' files: the manifest (segment "")
	// or the segment file segment, with the stat StateFiles would give.
	StateFile(segment string) (LogFile, error)
	// SnapshotAfter reads the log as it is now. prev (nil = none) is an
	// open earlier snapshot of this store the read may build on; it is
	// neither changed nor closed. The snapshot is immutable and safe for
	// concurrent use; it holds files open until Close.
	SnapshotAfter(prev LogSnapshot) (LogSnapshot, error)
	// Layout names where the log keeps its state, for the poller and the
	// watcher, which stamp and watch those entries and never read them.
	Layout() LogLayout
}

// LogFile is one of a log's state files.
type LogFile struct {
	Segment string // the segment file's name; "" for the manifest
	Info    fs.FileInfo
}

// LogLayout names the entries of a log directory (and of each partition).
type LogLayout struct {
	Manifest   string // the file listing the segments
	Segments   string // the folder of segment files
	Partitions string // a partitioned log's folder, one log directory a partition
	// IsSegment reports whether name, in the Segments folder, is a
	// segment file (other names there are temporary or foreign).
	IsSegment func(name string) bool
}

// LogSnapshot is one read of a log: the content of records.ndjson and of
// each segments/<file> as they were when it was taken.
type LogSnapshot interface {
	// KnownRecordsSize is the records view's size when the snapshot
	// counted it while reading the log; ok is false otherwise (the mount
	// then makes one pass over RecordLines).
	KnownRecordsSize() (size int64, ok bool)
	// RecordLines starts a pass over the records view: each live record,
	// in stream order, one line each. Next reports a line that cannot be
	// decoded with an error wrapping ErrSkippedLine, leaves it out of the
	// view and reads on; any other error ends the pass.
	RecordLines() LineSource
	// Segments lists the segment files the snapshot read, in manifest
	// order (sealed, then active); listed but missing ones are left out.
	Segments() []LogSegment
	// SegmentLines starts a pass over the payload lines of segment file
	// (framing stripped), each ending in "\n"; any error ends the pass.
	SegmentLines(file string) LineSource
	// RecordsExtend reports, without reading either view, that this
	// snapshot's records view is prev's followed by more lines; false
	// when it cannot tell. prev is a snapshot of the same LogStore and
	// must not be closed.
	RecordsExtend(prev LogSnapshot) bool
	// SegmentExtends is RecordsExtend for the view of segment file.
	SegmentExtends(prev LogSnapshot, file string) bool
	Close() error
}

// LogSegment is one segment file a snapshot shows.
type LogSegment struct {
	File         string // its name in the segments folder
	PayloadBytes int64  // the size of its view (SegmentLines)
}

// ErrSkippedLine marks a line of a log the records view leaves out
// because it cannot be decoded (LogSnapshot.RecordLines).
var ErrSkippedLine = errors.New("undecodable line left out")

// LineSource is one pass over a view's content: Next returns the next
// line (valid until the following call), io.EOF at the end.
type LineSource interface {
	Next() ([]byte, error)
	Close() error
}

// QueueBackend finds and opens Queues.
type QueueBackend interface {
	// IsCollection reports whether dir holds a Queue. It creates nothing
	// and follows no symlink.
	IsCollection(dir string) bool
	// Markers are the entries of a directory whose presence makes it a
	// Queue.
	Markers() []string
	// Open returns the queue directory dir. It reads nothing.
	Open(dir string) QueueStore
}

// QueueStore is what the mount needs of one queue directory.
type QueueStore interface {
	// Dir is the queue directory on disk.
	Dir() string
	// StateFile is the name, in Dir, of the one file the queue's content
	// is read from: its (size, mtime, inode) unchanged means an unchanged
	// queue. The poller and the watcher stamp and watch it.
	StateFile() string
	// SnapshotAfter reads the queue as it is now. prev (nil = none) is an
	// open earlier snapshot of this store the read may build on; it is
	// neither changed nor closed. The snapshot is immutable and safe for
	// concurrent use; it holds files open until Close.
	SnapshotAfter(prev QueueSnapshot) (QueueSnapshot, error)
}

// QueueView is one of the files a queue folder shows (queueViews).
type QueueView int

const (
	QueuePending    QueueView = iota // pending jobs, in claim order
	QueueProcessing                  // claimed jobs
	QueueDone                        // finished jobs
	QueueEvents                      // every event, in log order
)

// QueueSnapshot is one read of a queue: the content of each QueueView as
// it was when it was taken.
type QueueSnapshot interface {
	// ViewSize is the exact size of view v.
	ViewSize(v QueueView) (int64, error)
	// ReadAt reads view v as io.ReaderAt does.
	ReadAt(v QueueView, p []byte, off int64) (int, error)
	// EventsExtend reports, without reading either view, that this
	// snapshot's events view is prev's followed by more lines; false when
	// it cannot tell. prev is a snapshot of the same QueueStore and must
	// not be closed.
	EventsExtend(prev QueueSnapshot) bool
	Close() error
}
