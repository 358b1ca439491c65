package seglog

import (
	"os"

	"storhfs/core/phpjson"
)

// rollLocked seals the active segment (spec 3.3), lock held: idx file,
// next free seg-N created empty, manifest written last. An active segment
// without lines is never sealed.
func (l *Log) rollLocked() error {
	plan, err := l.prepareRoll()
	if err != nil || plan == nil {
		return err
	}
	return l.commitRoll(plan)
}

// rollPlan is a roll whose idx file and new active file exist; only the
// manifest (the commit point) is left to write.
type rollPlan struct {
	name    string // segment being sealed
	seg     int32
	st      *segStats
	next    int64  // number of the new active segment
	newName string // its file name
}

// prepareRoll writes the sealed segment's idx file and creates the next
// free seg-N (both concurrently: neither depends on the other, and the
// manifest that references them is written after both). nil plan: nothing
// to seal.
func (l *Log) prepareRoll() (*rollPlan, error) {
	if err := l.refreshManifest(); err != nil {
		return nil, err
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
			return nil, err
		}
	}
	if st.records == 0 {
		return nil, nil
	}
	idxPath := l.segDir + "/" + indexNameFor(name)
	l.sparse.invalidate(idxPath)
	idxDone := make(chan error, 1)
	go func(entries []sparseEntry) { idxDone <- writeSparse(idxPath, entries) }(st.sparse)

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
	touchErr := touch(l.segDir + "/" + newName)
	if err := <-idxDone; err != nil {
		return nil, err
	}
	if touchErr != nil {
		return nil, touchErr
	}
	return &rollPlan{name: name, seg: seg, st: st, next: next, newName: newName}, nil
}

// commitRoll writes the manifest that seals plan.name and makes the new
// segment active.
func (l *Log) commitRoll(p *rollPlan) error {
	doc := l.man.doc
	list := l.man.sealedList
	if list == nil {
		list = phpjson.NewArray(1)
		doc.SetString("sealed", list)
	}
	list.Append(sealedObj(p.name, p.st, false))
	doc.SetString("nextSegment", p.next+1)
	doc.SetString("active", newActiveObj(p.newName))
	if err := l.writeManifest(l.man); err != nil {
		return err
	}
	l.stats[p.seg] = p.st
	p.st.sparse = nil
	l.dropActive()
	newSeg := l.segs.id(p.newName)
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
