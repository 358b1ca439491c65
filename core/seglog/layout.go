package seglog

import "os"

// IsCollection reports whether dir holds a SegmentedLog collection: a
// manifest.jsonc beside segments/, or a partitions/ folder of partitioned
// logs. It creates nothing.
func IsCollection(dir string) bool {
	if isDir(dir + "/partitions") {
		return true
	}
	fi, err := os.Stat(dir + "/" + manifestName)
	return err == nil && fi.Mode().IsRegular() && isDir(dir+"/"+segmentsDirName)
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
