// Package shard is the DocStore record layout (docs/format/docstore.md §1.2, §8.4):
//
//	C/data/<id[24:26]>/<id>.jsonc
//
// The bucket is the two characters at offsets 24-25 of the id, case kept
// (data/AB and data/ab are different directories).
package shard

// RecordExt is the record file extension, dot included.
const RecordExt = ".jsonc"

// BucketOf returns id[24:26] verbatim, or "" when id is shorter than 26 bytes.
func BucketOf(id string) string {
	if len(id) < 26 {
		return ""
	}
	return id[24:26]
}

// DataDirName is the folder of a collection holding the buckets.
const DataDirName = "data"

// DataDir is C/data (plain concatenation, like PHP: no path cleaning).
func DataDir(collectionDir string) string { return collectionDir + "/" + DataDirName }

// BucketDir is C/data/<bucket of id>.
func BucketDir(collectionDir, id string) string {
	return DataDir(collectionDir) + "/" + BucketOf(id)
}

// RecordPath is C/data/<bucket>/<id>.jsonc. Only validated ids may be
// passed (a validated id cannot escape data/).
func RecordPath(collectionDir, id string) string {
	// One expression, so one allocation (the mount stats a record per lookup).
	return collectionDir + "/data/" + BucketOf(id) + "/" + id + RecordExt
}

// IDFromName returns the record key of a file name: the name without its
// ".jsonc" extension when the name ends in ".jsonc" and the stem is not
// empty. Like PHP's scan, the stem need not be a valid UUID (such files are
// listed and then fail to read as corrupt records).
func IDFromName(name string) (string, bool) {
	if len(name) <= len(RecordExt) || name[len(name)-len(RecordExt):] != RecordExt {
		return "", false
	}
	return name[:len(name)-len(RecordExt)], true
}
