package docindex

import (
	"os"

	"storhfs/core/fsutil"
	"storhfs/core/phpjson"
)

// eqFlushIDs: equality/compound ids held in memory before they are merged
// into their files mid-rebuild (PHP EQ_REBUILD_FLUSH_IDS).
const eqFlushIDs = 1 << 20

// Rebuild deletes entries/, recreates it empty and rebuilds every index
// from src (spec 7.9; call under the write lock). It returns the number of
// definitions and the number of records read. When src fails (a corrupt
// record), entries/ has already been emptied: PHP's behaviour.
//
// The bytes, file names and directories are PHP's; the writes are not in
// PHP's order: files are written concurrently (syncWriter) and each
// directory is fsynced once at the end. When Rebuild returns without error,
// every file and directory entry it made is durable, as with PHP.
func (m *Manager) Rebuild(src RecordSource) (fields, entries int, err error) {
	defs, err := m.definitions()
	if err != nil {
		return 0, 0, err
	}
	root := m.paths.entries()
	// PHP ignores unlink/rmdir failures here. Only when the delete fully
	// succeeded is entries/ known to hold no entry file to merge with.
	fresh := os.RemoveAll(root) == nil
	if err := fsutil.EnsureDir(root); err != nil {
		return 0, 0, err
	}
	b := newRebuilder(m.paths, defs, fresh)
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
// its syncWriter.
type rebuilder struct {
	paths paths
	defs  []defState
	w     *syncWriter
	made  map[string]bool // directories already created

	// fresh: entries/ was emptied, so an entry file needs merging with the
	// disk only if an earlier flush of this rebuild wrote it (in flushed).
	fresh   bool
	flushed map[string]bool

	eqOrder  []*eqBucket           // held buckets, first-seen order
	compound map[pairKey]*eqBucket // held compound buckets
	eqIDs    int                   // ids held in all buckets

	ranges *rangeCollector
	pairs  []pairValue // scratch: one record's compound candidates
}

// defState is one definition plus its held equality buckets.
type defState struct {
	Definition
	dir     string               // eq/<FK>, for non-range fields
	buckets map[string]*eqBucket // by VK
}

// eqBucket is one equality or compound file's ids held in memory.
type eqBucket struct {
	dir, field, key string
	value           phpjson.Value // from the first record with this key (PHP ??=)
	ids             []string      // source order
}

// pairKey names a compound bucket: the definitions' indexes and values' VKs.
type pairKey struct {
	left, right int
	vkL, vkR    string
}

type pairValue struct {
	def int
	vk  string
}

func newRebuilder(p paths, defs []Definition, fresh bool) *rebuilder {
	b := &rebuilder{
		paths:    p,
		w:        newSyncWriter(rebuildWriters),
		made:     map[string]bool{},
		fresh:    fresh,
		flushed:  map[string]bool{},
		compound: map[pairKey]*eqBucket{},
	}
	b.ranges = newRangeCollector(p, b.w, b.ensureDir)
	for _, d := range defs {
		s := defState{Definition: d}
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
		if d.Range {
			if err := b.ranges.add(d.Field, id, v); err != nil {
				return err
			}
			continue
		}
		vk := ValueKey(v)
		bk := d.buckets[vk]
		if bk == nil {
			bk = &eqBucket{dir: d.dir, field: d.Field, key: vk, value: v}
			d.buckets[vk] = bk
			b.eqOrder = append(b.eqOrder, bk)
		}
		bk.ids = append(bk.ids, id)
		b.eqIDs++
		if !d.Unique {
			b.pairs = append(b.pairs, pairValue{i, vk})
		}
	}
	for i := 0; i < len(b.pairs)-1; i++ {
		for j := i + 1; j < len(b.pairs); j++ {
			b.addCompound(b.pairs[i], b.pairs[j], id)
		}
	}
	if b.eqIDs >= eqFlushIDs {
		if err := b.flushEq(); err != nil {
			return err
		}
		// A later flush may merge into these files: they must be complete.
		if err := b.w.wait(); err != nil {
			return err
		}
	}
	if b.ranges.held >= rangeChunkEntries {
		return b.ranges.flush()
	}
	return nil
}

func (b *rebuilder) addCompound(l, r pairValue, id string) {
	k := pairKey{l.def, r.def, l.vk, r.vk}
	bk := b.compound[k]
	if bk == nil {
		left, right := b.defs[l.def].Field, b.defs[r.def].Field
		bk = &eqBucket{
			dir:   b.paths.compoundDir(left, right),
			field: left + "\t" + right,
			key:   compoundKeyOf(l.vk, r.vk),
		}
		b.compound[k] = bk
		b.eqOrder = append(b.eqOrder, bk)
	}
	bk.ids = append(bk.ids, id)
	b.eqIDs++
}

// flushEq hands every held bucket to the writer (PHP merge_index_buckets)
// and forgets them. The writes complete in the background.
func (b *rebuilder) flushEq() error {
	for _, bk := range b.eqOrder {
		if err := b.ensureDir(bk.dir); err != nil {
			return err
		}
		path := bk.dir + "/" + bk.key + ".jsonc"
		merge := !b.fresh || b.flushed[path]
		b.flushed[path] = true
		b.w.write(nil, path, func() ([]byte, error) {
			if merge {
				return mergedEntry(path, bk.field, bk.key, bk.value, bk.ids)
			}
			e := entry{field: bk.field, key: bk.key, value: bk.value, ids: sortedUniqueIfNeeded(bk.ids)}
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

// finish flushes everything, merges the range chunks into main and sparse
// files, deletes the chunks and makes it all durable.
func (b *rebuilder) finish() error {
	if err := b.flushEq(); err != nil {
		_ = b.w.wait()
		return err
	}
	// The range merge is CPU work; it overlaps the entry files' fsyncs.
	chunks, err := b.ranges.finish()
	if err != nil {
		_ = b.w.wait()
		return err
	}
	if err := b.w.wait(); err != nil {
		return err
	}
	for _, c := range chunks {
		_ = os.Remove(c)
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

// sortedUniqueIfNeeded returns ids sorted bytewise without duplicates;
// sources yield ids in ascending order, so usually ids is returned as is.
func sortedUniqueIfNeeded(ids []string) []string {
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			return sortedUnique(ids)
		}
	}
	return ids
}
