// Package seglog is storh's SegmentedLog engine (docs/format/segmentedlog.md),
// byte-compatible with the PHP library.
//
// Two layers:
//   - Reader/Snapshot: read-only. Opens nothing for writing, takes no lock,
//     never truncates; a torn or corrupt line ends that segment's replay and
//     is reported (SegmentInfo). Gets by id, renders the mount's
//     records.ndjson and segments/<seg>.ndjson with exact sizes, and gives
//     PHP's stats() and verify() of an instance opened on the files
//     without truncating them (readonly.go).
//     Memory is bounded by the number of ids, never by the bytes of the
//     log: segments are read through a fixed window.
//   - Log: PHP's SegmentedLogStore instance. Open recovers exactly like the
//     PHP constructor (lock, sweep, leftover cleanup, truncation at the
//     first invalid line, manifest rewrite); put/delete/appendMany/
//     appendStream, rolls, compact, retain, recover, repair, verify, stats.
//     Every mutation holds flock on collection.lock and re-reads the
//     manifest under it.
//
// Callbacks passed to Log.Stream run under the instance mutex and must not
// call back into the same Log.
package seglog
