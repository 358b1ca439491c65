package docindex

import (
	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// eqFlushIDs: equality/compound ids held in memory before they are merged
// into their files mid-rebuild (PHP EQ_REBUILD_FLUSH_IDS).
const eqFlushIDs = 1 << 20

// rebuildLimits are the memory thresholds of a rebuild. They change when
// files are written, never what is written.
type rebuildLimits struct {
	eqFlushIDs, rangeChunkEntries int
}

// Rebuild deletes entries/, recreates it empty and rebuilds every index
// from src (docs/format/indexes.md §10; call under the write lock). It returns the number of
// definitions and the number of records read. When src fails (a corrupt
// record), entries/ has already been emptied: PHP's behaviour.
//
// The bytes, file names and directories are PHP's; the writes are not in
// PHP's order: files are written concurrently (syncWriter) and each
// directory is fsynced once at the end. When Rebuild returns without error,
// every file and directory entry it made is durable, as with PHP.
func (m *Manager) Rebuild(src RecordSource) (fields, entries int, err error) {
	return m.rebuild(src, nil)
}

// RebuildIndexes rebuilds only the named indexes from src (call under the
// write lock): it deletes their files (an equality, unique or compound
// index's directory; a range index's main, sparse, delta and chunk files)
// and writes them exactly as Rebuild would, byte for byte. Every other
// index file is left alone. It returns the number of records read; with
// no refs it does nothing. As with Rebuild, a failing src leaves the named
// indexes deleted.
func (m *Manager) RebuildIndexes(src RecordSource, refs []IndexRef) (entries int, err error) {
	if len(refs) == 0 {
		return 0, nil
	}
	_, entries, err = m.rebuild(src, newRebuildScope(refs))
	return entries, err
}

// rebuild is Rebuild (scope nil) or RebuildIndexes.
func (m *Manager) rebuild(src RecordSource, scope *rebuildScope) (fields, entries int, err error) {
	defs, err := m.definitions()
	if err != nil {
		return 0, 0, err
	}
	b := newRebuilder(m.paths, defs, m.limits, scope)
	// PHP ignores unlink/rmdir failures here. Only when the delete fully
	// succeeded is entries/ known to hold no entry file to merge with.
	b.fresh = scope.remove(m.paths)
	if err := fsutil.EnsureDir(m.paths.entries()); err != nil {
		return 0, 0, err
	}
	if src != nil {
		err = src(func(id string, data *phpjson.Array) error {
			entries++
			return b.add(id, data)
		})
		if err != nil {
			_ = b.w.wait() // no write outlives the call
			return 0, 0, err
		}
	}
	if err := b.finish(); err != nil {
		return 0, 0, err
	}
	return len(defs), entries, nil
}

// rebuilder accumulates one rebuild's entries and hands finished files to
// its syncWriter. Only the caller's goroutine uses it.
type rebuilder struct {
	paths  paths
	limits rebuildLimits
	scope  *rebuildScope // the indexes written; nil: all of them
	defs   []defState
	w      *syncWriter
	made   map[string]bool // directories already created

	// fresh: entries/ was emptied, so an entry file needs merging with the
	// disk only if an earlier (mid-rebuild) flush wrote it; those paths
	// are in flushed.
	fresh   bool
	flushed map[string]bool

	eqOrder  []*eqBucket           // held buckets, first-seen order
	compound map[pairKey]*eqBucket // held compound buckets
	eqIDs    int                   // ids held in all buckets

	ranges *rangeCollector
	pairs  []*eqBucket // scratch: one record's non-unique equality buckets
	vk     []byte      // scratch: one VK
}

// defState is one definition plus its held equality buckets.
type defState struct {
	Definition
	write   bool                 // in the rebuild's scope
	paired  bool                 // half of a compound index in the scope
	dir     string               // eq/<FK>, for non-range fields
	buckets map[string]*eqBucket // by VK
}

// eqBucket is one equality or compound file's ids held in memory. A
// bucket of an equality field outside the scope is kept only as a compound
// pair's half: it holds no ids and is never written.
type eqBucket struct {
	dir, field, key string
	value           phpjson.Value // from the first record with this key (PHP ??=)
	ids             []string      // source order
	write           bool
}

// pairKey names a compound bucket by its two equality buckets, which stand
// for (left field, VK) and (right field, VK).
type pairKey struct{ left, right *eqBucket }

func newRebuilder(p paths, defs []Definition, limits rebuildLimits, scope *rebuildScope) *rebuilder {
	b := &rebuilder{
		paths:    p,
		limits:   limits,
		scope:    scope,
		w:        newSyncWriter(rebuildWriters),
		made:     map[string]bool{},
		flushed:  map[string]bool{},
		compound: map[pairKey]*eqBucket{},
	}
	b.ranges = newRangeCollector(p, b.w, b.ensureDir)
	for _, d := range defs {
		s := defState{Definition: d, write: scope.hasField(d.Field), paired: scope.pairsWith(d.Field)}
		if !d.Range {
			s.dir = p.eqDir(d.Field)
			s.buckets = map[string]*eqBucket{}
		}
		b.defs = append(b.defs, s)
	}
	// entries/ was recreated in indexes/: both directories changed.
	b.w.markDir(p.indexes())
	b.w.markDir(p.entries())
	return b
}

// add collects the entries of one record, flushing when the held amounts
// reach PHP's thresholds.
func (b *rebuilder) add(id string, data *phpjson.Array) error {
	b.pairs = b.pairs[:0]
	for i := range b.defs {
		d := &b.defs[i]
		v, ok := fieldValue(data, d.Field)
		if !ok {
			continue
		}
		if !d.write && (d.Range || !d.paired) {
			continue
		}
		if d.Range {
			if err := b.ranges.add(d.Field, id, v); err != nil {
				return err
			}
			continue
		}
		b.vk = appendValueKey(b.vk[:0], v)
		bk := d.buckets[string(b.vk)] // no allocation for the lookup
		if bk == nil {
			vk := string(b.vk)
			bk = &eqBucket{dir: d.dir, field: d.Field, key: vk, value: v, write: d.write}
			d.buckets[vk] = bk
			b.eqOrder = append(b.eqOrder, bk)
		}
		if bk.write {
			bk.ids = append(bk.ids, id)
			b.eqIDs++
		}
		if !d.Unique {
			b.pairs = append(b.pairs, bk)
		}
	}
	for i := 0; i < len(b.pairs)-1; i++ {
		for j := i + 1; j < len(b.pairs); j++ {
			b.addCompound(b.pairs[i], b.pairs[j], id)
		}
	}
	if b.eqIDs >= b.limits.eqFlushIDs {
		if err := b.flushEq(false); err != nil {
			return err
		}
		// A later flush may merge into these files: they must be complete.
		if err := b.w.wait(); err != nil {
			return err
		}
	}
	if b.ranges.held >= b.limits.rangeChunkEntries {
		return b.ranges.flush()
	}
	return nil
}

func (b *rebuilder) addCompound(l, r *eqBucket, id string) {
	if !b.scope.hasPair(l.field, r.field) {
		return
	}
	k := pairKey{l, r}
	bk := b.compound[k]
	if bk == nil {
		bk = &eqBucket{
			dir:   b.paths.compoundDir(l.field, r.field),
			field: l.field + "\t" + r.field,
			key:   compoundKeyOf(l.key, r.key),
			write: true,
		}
		b.compound[k] = bk
		b.eqOrder = append(b.eqOrder, bk)
	}
	bk.ids = append(bk.ids, id)
	b.eqIDs++
}

// flushEq hands every held bucket to the writer (PHP merge_index_buckets)
// and forgets them. The writes complete in the background. Paths are
// remembered for later flushes unless this is the final one.
func (b *rebuilder) flushEq(final bool) error {
	for _, bk := range b.eqOrder {
		if !bk.write {
			continue
		}
		if err := b.ensureDir(bk.dir); err != nil {
			return err
		}
		path := bk.dir + "/" + bk.key + ".jsonc"
		merge := !b.fresh || b.flushed[path]
		if !final {
			b.flushed[path] = true
		}
		b.w.write(path, func() ([]byte, error) {
			if merge {
				return mergedEntry(path, bk.field, bk.key, bk.value, bk.ids)
			}
			e := entry{field: bk.field, key: bk.key, value: bk.value, ids: sortedUnique(bk.ids)}
			return e.encode()
		})
	}
	for i := range b.defs {
		if b.defs[i].buckets != nil {
			b.defs[i].buckets = map[string]*eqBucket{}
		}
	}
	b.eqOrder, b.compound, b.eqIDs = nil, map[pairKey]*eqBucket{}, 0
	return nil
}

// finish merges the range chunks into main and sparse files, flushes the
// equality and compound files, deletes the chunks and makes it all
// durable.
func (b *rebuilder) finish() error {
	chunks, rangeErr := b.ranges.finish()
	eqErr := b.flushEq(true)
	werr := b.w.wait()
	switch {
	case eqErr != nil:
		return eqErr
	case werr != nil:
		return werr
	case rangeErr != nil:
		return rangeErr
	}
	for _, c := range chunks {
		_ = fsutil.Remove(c)
	}
	return b.w.syncDirs()
}

// ensureDir creates dir (and parents) once per rebuild and marks it and
// its parents up to entries/ for the final directory fsync.
func (b *rebuilder) ensureDir(dir string) error {
	if b.made[dir] {
		return nil
	}
	if err := fsutil.EnsureDir(dir); err != nil {
		return err
	}
	root := b.paths.entries()
	for d := dir; len(d) > len(root) && !b.made[d]; d = dirOf(d) {
		b.made[d] = true
		b.w.markDir(d)
	}
	return nil
}
