package seglog

import (
	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// rollLocked seals the active segment (docs/format/segmentedlog.md §3.3), lock held, in PHP's
// order: the active handle is closed, the idx file written, the next free
// seg-N created empty, and the manifest written last (atomically: the
// commit point). A crash before the manifest leaves an idx file and an
// empty orphan seg-N that the next roll skips, as PHP's roll does. An
// active segment without lines is never sealed. l.man.doc is edited in
// place; a failed roll forgets it (the next refresh re-reads the manifest).
func (l *Log) rollLocked() error {
	if err := l.refreshManifest(); err != nil {
		return err
	}
	name := l.man.activeFile()
	seg := l.segs.id(name)
	st := l.stats[seg]
	if l.active != nil && l.active.name == name {
		st = l.active.stats
	}
	if fi, err := fsutil.Stat(l.segDir + "/" + name); st == nil || err != nil || fi.Size() != st.end {
		// Lines this instance did not write: rescan (read-only) for the
		// stats and sparse offsets.
		r, err := replaySegment(l.segDir+"/"+name, 0, replayRead, newStateIndex(), l.opts.SparseIndexInterval, l.buf)
		if err != nil {
			return err
		}
		st = r.stats
	}
	if st.records == 0 {
		return nil
	}
	l.dropActive()
	idxPath := l.segDir + "/" + indexNameFor(name)
	if err := writeSparse(idxPath, st.sparse); err != nil {
		return err
	}
	next := l.nextFreeSegment(name)
	newName := segmentName(next)
	doc := l.man.doc
	list := l.man.sealedList
	if list == nil {
		list = phpjson.NewArray(1)
		doc.SetString("sealed", list)
	}
	list.Append(sealedObj(name, st, false))
	doc.SetString("nextSegment", next+1)
	doc.SetString("active", newActiveObj(newName))
	content, err := phpjson.EncodeCompactObject(doc)
	if err == nil {
		err = touch(l.segDir + "/" + newName)
	}
	if err == nil {
		err = fsutil.WriteAtomic(l.dir+"/"+manifestName, content)
	}
	if err != nil {
		l.manStat = fileStamp{}
		return err
	}
	l.adoptManifest(doc)
	l.stats[seg] = st
	st.sparse = nil
	l.stats[l.segs.id(newName)] = newSegStats(l.opts.SparseIndexInterval)
	return nil
}

// nextFreeSegment is the number of the segment a roll of name creates:
// past nextSegment and name's own number, skipping existing files.
func (l *Log) nextFreeSegment(name string) int64 {
	next := l.man.nextSegment
	if n, ok := segmentNumber(name); ok {
		if n+1 > next {
			next = n + 1
		}
	} else if next < 2 {
		next = 2
	}
	for {
		fi, err := fsutil.Stat(l.segDir + "/" + segmentName(next))
		if err != nil || !fi.Mode().IsRegular() {
			return next
		}
		next++
	}
}
