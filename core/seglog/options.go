package seglog

import (
	"strings"
	"time"
)

// Defaults of storh's SegmentedLogStore constructor (docs/format/segmentedlog.md §1.1).
const (
	DefaultMaxSegmentBytes     = 1 << 20
	DefaultSparseIndexInterval = 64
	minSegmentBytes            = 256
)

// Partition schemes.
const (
	PartitionNone    = ""
	PartitionDaily   = "daily"
	PartitionMonthly = "monthly"
)

// Options are a Log's per-process settings (never persisted).
type Options struct {
	// MaxSegmentBytes: roll once a segment's end reaches it. 0 = 1 MiB;
	// 1..255 and negative values are rejected like PHP.
	MaxSegmentBytes int64
	// SparseIndexInterval: one idx entry every N lines. 0 = 64; negative
	// values are rejected ("must be at least 1").
	SparseIndexInterval int64
	// Partition: PartitionNone, PartitionDaily or PartitionMonthly.
	Partition string
	// PartitionTimestampMs picks the partition; nil = Now().
	PartitionTimestampMs *int64
	// Now is the clock (partition choice, retention, temp sweep); nil = time.Now.
	Now func() time.Time
	// NewID generates ids for records written without one; nil = a UUIDv7
	// generator on Now.
	NewID func() (string, error)
}

func (o *Options) normalise() error {
	if o.MaxSegmentBytes == 0 {
		o.MaxSegmentBytes = DefaultMaxSegmentBytes
	}
	if o.MaxSegmentBytes < minSegmentBytes {
		return ErrSegmentTooSmall
	}
	if o.SparseIndexInterval == 0 {
		o.SparseIndexInterval = DefaultSparseIndexInterval
	}
	if o.SparseIndexInterval < 1 {
		return ErrSparseInterval
	}
	if o.Partition != PartitionNone && o.Partition != PartitionDaily && o.Partition != PartitionMonthly {
		return &PartitionError{Partition: o.Partition}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// CollectionDir is the directory a log with these options uses under root
// (docs/format/segmentedlog.md §1.1): root (trailing "/" and "\" stripped) + "/" + collection, plus
// "partitions/YYYY-MM-DD" or "partitions/YYYY-MM" (UTC) when partitioned.
func CollectionDir(root, collection, partition string, timestampMs int64) string {
	dir := strings.TrimRight(root, `/\`) + "/" + collection
	if partition == PartitionNone {
		return dir
	}
	t := time.Unix(timestampMs/1000, 0).UTC() // PHP intdiv
	layout := "2006-01-02"
	if partition == PartitionMonthly {
		layout = "2006-01"
	}
	return dir + "/partitions/" + t.Format(layout)
}
