package seglog

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/storhfs/storhfs/core/fsutil"
)

// IsCollection reports whether dir holds a SegmentedLog collection: a
// manifest.jsonc beside segments/, or a partitions/ folder of partitioned
// logs. It creates nothing and follows no symlink.
func IsCollection(dir string) bool {
	return isDir(dir+"/"+PartitionsDir) || (HasManifest(dir) && isDir(dir+"/"+segmentsDirName))
}

func isDir(path string) bool {
	fi, err := fsutil.Stat(path)
	return err == nil && fi.IsDir()
}

// Names in a log directory (docs/format/segmentedlog.md §1); a partition
// directory has the same.
const (
	ManifestName  = manifestName    // the manifest file
	SegmentsDir   = segmentsDirName // the folder of segment files
	PartitionsDir = "partitions"    // a partitioned log's folder of logs, one a partition
	SegmentExt    = ".ndjson"       // a segment file's extension
)

// HasManifest reports whether dir holds a log's manifest (a regular file,
// not followed when a symlink).
func HasManifest(dir string) bool {
	fi, err := fsutil.Stat(dir + "/" + manifestName)
	return err == nil && fi.Mode().IsRegular()
}

// PartitionDir is the log directory of partition name of the partitioned
// log dir.
func PartitionDir(dir, name string) string { return dir + "/" + PartitionsDir + "/" + name }

// IsPartition reports whether name is a partition of the partitioned log
// dir: a folder holding a manifest. Names starting with "." never are.
func IsPartition(dir, name string) bool {
	return name != "" && name[0] != '.' && HasManifest(PartitionDir(dir, name))
}

// Partitions lists the partitions of dir (IsPartition), sorted: date
// partitions sort by time. A log without partitions has none.
func Partitions(dir string) []string {
	entries, err := fsutil.ReadDir(dir + "/" + PartitionsDir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && IsPartition(dir, e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// IsSegmentName reports whether name, in a log's segments folder, names a
// segment file.
func IsSegmentName(name string) bool {
	return name != "" && name[0] != '.' && strings.HasSuffix(name, SegmentExt)
}

// StateFile is one file a log's content is read from, with its path
// relative to the log directory ("manifest.jsonc", "segments/<file>").
type StateFile struct {
	Path string
	Info fs.FileInfo
}

// StateFiles stats the files a log's content is read from: its manifest
// and every segment file present, in that order. A change of any of them
// (size, mtime, inode) is a change of the log. A segment removed while
// listed is left out.
func StateFiles(dir string) ([]StateFile, error) {
	fi, err := fsutil.Stat(dir + "/" + manifestName)
	if err != nil {
		return nil, err
	}
	files := []StateFile{{Path: manifestName, Info: fi}}
	entries, err := fsutil.ReadDir(dir + "/" + SegmentsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if !IsSegmentName(e.Name()) {
			continue
		}
		if fi, err := e.Info(); err == nil {
			files = append(files, StateFile{Path: SegmentsDir + "/" + e.Name(), Info: fi})
		}
	}
	return files, nil
}

// StatStateFile stats one of StateFiles' files: the manifest (segment "")
// or segments/<segment>. Its stat equals StateFiles' for a regular file; a
// symlink fails (*fsutil.SymlinkError), as ReadDir would not show it as one.
func StatStateFile(dir, segment string) (StateFile, error) {
	path := manifestName
	if segment != "" {
		if !IsSegmentName(segment) || strings.ContainsRune(segment, '/') {
			return StateFile{}, fmt.Errorf("%s: not a segment name: %w", segment, fs.ErrNotExist)
		}
		path = SegmentsDir + "/" + segment
	}
	fi, err := fsutil.Stat(dir + "/" + path)
	if err != nil {
		return StateFile{}, err
	}
	return StateFile{Path: path, Info: fi}, nil
}
