package seglog

import "storhfs/core/fsutil"

// IsCollection reports whether dir holds a SegmentedLog collection: a
// manifest.jsonc beside segments/, or a partitions/ folder of partitioned
// logs. It creates nothing and follows no symlink.
func IsCollection(dir string) bool {
	if isDir(dir + "/partitions") {
		return true
	}
	fi, err := fsutil.Stat(dir + "/" + manifestName)
	return err == nil && fi.Mode().IsRegular() && isDir(dir+"/"+segmentsDirName)
}

func isDir(path string) bool {
	fi, err := fsutil.Stat(path)
	return err == nil && fi.IsDir()
}
