package seglog

// view is what reading needs: the manifest, the state index built from
// the segments it lists, scan stats, and optionally per-segment read
// limits (a Snapshot reads each segment only up to its valid prefix).
type view struct {
	segDir string
	man    *manifest
	segs   *segTable
	state  *stateIndex
	stats  map[int32]*segStats
	limits map[int32]int64 // nil = read to EOF
	buf    []byte          // scan window (callers serialise use)
	held   *heldSegments   // a snapshot's open segment files; nil for a Log
}

// readLimit is the byte limit for reading segment seg (-1 = EOF).
func (v *view) readLimit(seg int32) int64 {
	if n, ok := v.limits[seg]; ok {
		return n
	}
	return -1
}
