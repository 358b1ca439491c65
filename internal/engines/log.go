package engines

import (
	"errors"
	"path"

	"github.com/storhfs/storhfs/core/seglog"
	"github.com/storhfs/storhfs/fusefs"
)

// Logs is the mount's SegmentedLog backend.
type Logs struct{}

var (
	_ fusefs.LogBackend  = Logs{}
	_ fusefs.LogStore    = logDir("")
	_ fusefs.LogSnapshot = (*logSnapshot)(nil)
	_ fusefs.LineSource  = recordLines{}
)

func (Logs) IsCollection(dir string) bool { return seglog.IsCollection(dir) }

// Markers are the entries logLayout names.
func (Logs) Markers() []string {
	return []string{logLayout.Manifest, logLayout.Segments, logLayout.Partitions}
}

func (Logs) Open(dir string) fusefs.LogStore { return logDir(dir) }

// logDir is one log directory: a log, a partitioned log or a partition.
type logDir string

var logLayout = fusefs.LogLayout{
	Manifest:   seglog.ManifestName,
	Segments:   seglog.SegmentsDir,
	Partitions: seglog.PartitionsDir,
	IsSegment:  seglog.IsSegmentName,
}

func (d logDir) Dir() string                  { return string(d) }
func (d logDir) HasRecords() bool             { return seglog.HasManifest(string(d)) }
func (d logDir) Partitions() []string         { return seglog.Partitions(string(d)) }
func (d logDir) IsPartition(name string) bool { return seglog.IsPartition(string(d), name) }
func (d logDir) Partition(name string) fusefs.LogStore {
	return logDir(seglog.PartitionDir(string(d), name))
}
func (d logDir) Layout() fusefs.LogLayout { return logLayout }

// StateFiles: seglog.StateFiles, the manifest first.
func (d logDir) StateFiles() ([]fusefs.LogFile, error) {
	files, err := seglog.StateFiles(string(d))
	if err != nil {
		return nil, err
	}
	out := make([]fusefs.LogFile, len(files))
	for i, f := range files {
		out[i].Info = f.Info
		if i > 0 { // "segments/<file>"
			out[i].Segment = path.Base(f.Path)
		}
	}
	return out, nil
}

// StateFile: seglog.StatStateFile.
func (d logDir) StateFile(segment string) (fusefs.LogFile, error) {
	f, err := seglog.StatStateFile(string(d), segment)
	return fusefs.LogFile{Segment: segment, Info: f.Info}, err
}

// SnapshotAfter replays only what the segments gained since prev when it
// can (seglog.Reader.SnapshotAfter); a prev of another backend is ignored.
func (d logDir) SnapshotAfter(prev fusefs.LogSnapshot) (fusefs.LogSnapshot, error) {
	var base *seglog.Snapshot
	if p, ok := prev.(*logSnapshot); ok {
		base = p.Snapshot
	}
	snap, err := seglog.NewReader(string(d)).SnapshotAfter(base)
	if err != nil {
		return nil, err
	}
	return &logSnapshot{snap}, nil
}

// logSnapshot is a seglog snapshot; it holds its segment files open until
// Close.
type logSnapshot struct{ *seglog.Snapshot }

func (s *logSnapshot) RecordLines() fusefs.LineSource {
	return recordLines{s.Snapshot.RecordLines()}
}

// Segments leaves out the segments listed but missing.
func (s *logSnapshot) Segments() []fusefs.LogSegment {
	var out []fusefs.LogSegment
	for _, seg := range s.Snapshot.Segments() {
		if !seg.Missing {
			out = append(out, fusefs.LogSegment{File: seg.File, PayloadBytes: seg.PayloadBytes})
		}
	}
	return out
}

func (s *logSnapshot) SegmentLines(file string) fusefs.LineSource {
	return s.Snapshot.SegmentLines(file)
}

// RecordsExtend is false for a prev of another backend.
func (s *logSnapshot) RecordsExtend(prev fusefs.LogSnapshot) bool {
	p, ok := prev.(*logSnapshot)
	return ok && s.Snapshot.RecordsExtend(p.Snapshot)
}

// SegmentExtends is false for a prev of another backend.
func (s *logSnapshot) SegmentExtends(prev fusefs.LogSnapshot, file string) bool {
	p, ok := prev.(*logSnapshot)
	return ok && s.Snapshot.SegmentExtends(p.Snapshot, file)
}

// recordLines marks seglog's undecodable lines fusefs.ErrSkippedLine.
type recordLines struct{ *seglog.RecordLines }

func (r recordLines) Next() ([]byte, error) {
	line, err := r.RecordLines.Next()
	if err != nil {
		if le := (*seglog.LineError)(nil); errors.As(err, &le) {
			return nil, skippedLine{le}
		}
	}
	return line, err
}

// skippedLine is a *seglog.LineError that is also fusefs.ErrSkippedLine.
type skippedLine struct{ err *seglog.LineError }

func (e skippedLine) Error() string   { return e.err.Error() }
func (e skippedLine) Unwrap() []error { return []error{e.err, fusefs.ErrSkippedLine} }
