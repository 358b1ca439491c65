package seglog

import (
	"os"

	"storhfs/core/phpjson"
)

// rollLocked seals the active segment (spec 3.3), lock held: idx file,
// next free seg-N created empty, manifest written last. An active segment
// without lines is never sealed.
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
	if st == nil || !statsMatchFile(st, l.segDir+"/"+name) {
		var err error
		if st, err = l.scanStats(name); err != nil {
			return err
		}
	}
	if st.records == 0 {
		return nil
	}
	idxPath := l.segDir + "/" + indexNameFor(name)
	l.sparse.invalidate(idxPath)
	if err := writeSparse(idxPath, st.sparse); err != nil {
		return err
	}
	next := l.man.nextSegment
	if n, ok := segmentNumber(name); ok {
		if n+1 > next {
			next = n + 1
		}
	} else if next < 2 {
		next = 2
	}
	for {
		fi, err := os.Stat(l.segDir + "/" + segmentName(next))
		if err != nil || !fi.Mode().IsRegular() {
			break
		}
		next++
	}
	newName := segmentName(next)
	if err := touch(l.segDir + "/" + newName); err != nil {
		return err
	}
	doc := l.man.doc
	list := l.man.sealedList
	if list == nil {
		list = phpjson.NewArray(1)
		doc.SetString("sealed", list)
	}
	list.Append(sealedObj(name, st, false))
	doc.SetString("nextSegment", next+1)
	doc.SetString("active", newActiveObj(newName))
	if err := l.writeManifest(l.man); err != nil {
		return err
	}
	l.stats[seg] = st
	st.sparse = nil
	l.dropActive()
	newSeg := l.segs.id(newName)
	l.stats[newSeg] = newSegStats(l.opts.SparseIndexInterval)
	return nil
}

// statsMatchFile reports whether st covers the whole file at path.
func statsMatchFile(st *segStats, path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Size() == st.end
}

// scanStats rescans a segment (read-only) for its stats and sparse offsets.
func (l *Log) scanStats(name string) (*segStats, error) {
	scratch := newStateIndex()
	r, err := replaySegment(l.segDir+"/"+name, 0, replayRead, scratch, l.opts.SparseIndexInterval, l.buf)
	if err != nil {
		return nil, err
	}
	return r.stats, nil
}
