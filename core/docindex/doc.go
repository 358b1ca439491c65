// Package docindex maintains storh DocStore secondary indexes byte for byte
// as the PHP library does (docs/format/indexes.md).
//
// On-disk layout below the collection directory C:
//
//	C/.storh/indexes/manifest.jsonc                      definitions (7.1), pretty JSON
//	C/.storh/indexes/entries/eq/<FK>/<VK>.jsonc           equality/unique entries (7.4)
//	C/.storh/indexes/entries/compound/<FK(L)>-<FK(R)>/<CK>.jsonc  auto pairs (7.6)
//	C/.storh/indexes/entries/range/<FK>.jsonl             sorted main file (rebuild only)
//	C/.storh/indexes/entries/range/<FK>.idx.jsonc         sparse checkpoints, stride 256
//	C/.storh/indexes/entries/range/<FK>.delta.jsonl       appended changes since rebuild
//	C/.storh/indexes/entries/range/.chunks/<FK>-<n>.jsonl transient rebuild chunks
//
// FK, VK, RK and CK are the keys of 7.2 (FieldKey, ValueKey, RangeKey,
// CompoundKey). Entry files and range lines are also read by PHP with raw
// substring scans, so their canonical layouts are mandatory.
//
// Mutating calls (UpdateRecord, RemoveRecord, Sync, Rebuild) must be made by
// the store while it holds the collection write lock. Lookups take no lock:
// files may be mid-update, and undecodable range lines count as absent.
package docindex
