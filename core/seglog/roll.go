package seglog

import (
	"os"

	"storhfs/core/fsutil"
	"storhfs/core/phpjson"
)

// rollLocked seals the active segment (docs/format/segmentedlog.md §3.3), lock held: idx file,
// next free seg-N created empty, manifest written last. An active segment
// without lines is never sealed.
func (l *Log) rollLocked() error {
	plan, err := l.prepareRoll()
	if err != nil || plan == nil {
		return err
	}
	return l.commitRoll(plan)
}

// rollPlan is a roll in flight. PHP's steps are idx file, new active file,
// manifest (temp, fsync, rename, directory fsync); the idx file on one
// goroutine and the new active file then the manifest's temp file on
// another are written and fsynced concurrently (with the sealed segment's
// own fsync, when the caller overlaps it), and only the manifest's rename,
// the commit point, waits for all of them. A crash
// before it leaves what a PHP crash before its manifest write leaves (an
// idx file, an empty orphan seg-N, possibly a temp file), after it the
// same files as PHP's roll.
type rollPlan struct {
	name    string // segment being sealed
	seg     int32
	st      *segStats
	newName string    // the new active segment
	newFile *os.File  // it, created empty, open read-write (set by wait)
	man     *manifest // the manifest being written

	idxDone chan error
	manDone chan preparedManifest
}

type preparedManifest struct {
	newFile *os.File // the new active segment, once created
	file    *fsutil.PreparedFile
	err     error
}

// prepareRoll starts a roll: the sealed segment's idx file, the next free
// seg-N and the new manifest's temp file are being written when it
// returns. l.man.doc already describes the rolled state; a
// failed roll forgets it (the next refresh re-reads the manifest). nil
// plan: nothing to seal.
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
	p := &rollPlan{name: name, seg: seg, st: st, idxDone: make(chan error, 1), manDone: make(chan preparedManifest, 1)}
	go func(entries []sparseEntry) { p.idxDone <- writeSparse(idxPath, entries) }(st.sparse)

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
			break
		}
		next++
	}
	p.newName = segmentName(next)

	doc := l.man.doc
	list := l.man.sealedList
	if list == nil {
		list = phpjson.NewArray(1)
		doc.SetString("sealed", list)
	}
	sealed, active := sealedObj(name, st, false), newActiveObj(p.newName)
	list.Append(sealed)
	doc.SetString("nextSegment", next+1)
	doc.SetString("active", active)
	p.man = l.man.afterRoll(list, sealed, active, next+1)
	content, err := l.manEnc.encode(doc)
	if err != nil {
		p.manDone <- preparedManifest{}
		p.abort(l)
		return nil, err
	}
	go func(newName string) {
		f, err := fsutil.OpenFile(l.segDir+"/"+newName, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			p.manDone <- preparedManifest{err: &SegmentOpenError{File: newName, Err: err}}
			return
		}
		pf, err := fsutil.PrepareAtomic(l.dir+"/"+manifestName, content)
		p.manDone <- preparedManifest{newFile: f, file: pf, err: err}
	}(p.newName)
	return p, nil
}

// wait waits for the idx file, the new segment and the manifest's temp
// file (once: abort and commitRoll each call it at most once).
func (p *rollPlan) wait() (*fsutil.PreparedFile, error) {
	idxErr := <-p.idxDone
	pm := <-p.manDone
	p.newFile = pm.newFile
	if idxErr != nil {
		if pm.file != nil {
			pm.file.Abort()
		}
		return nil, idxErr
	}
	return pm.file, pm.err
}

// abort gives up a prepared roll: the manifest temp is removed, the new
// (empty) segment stays as an orphan the next roll skips, and the
// in-memory manifest, already describing the roll, is forgotten.
func (p *rollPlan) abort(l *Log) {
	if pf, err := p.wait(); err == nil && pf != nil {
		pf.Abort()
	}
	if p.newFile != nil {
		p.newFile.Close()
	}
	l.manStat = fileStamp{}
}

// commitRoll waits for the plan's files, renames the manifest that seals
// p.name into place and makes the new segment the active one.
func (l *Log) commitRoll(p *rollPlan) error {
	pf, err := p.wait()
	if err == nil {
		err = pf.Commit()
	}
	if err != nil {
		if p.newFile != nil {
			p.newFile.Close()
		}
		l.manStat = fileStamp{}
		return err
	}
	l.man = p.man
	l.manStat, _ = stampOf(l.dir + "/" + manifestName)
	l.stats[p.seg] = p.st
	p.st.sparse = nil
	l.dropActive()
	newSeg := l.segs.id(p.newName)
	st := newSegStats(l.opts.SparseIndexInterval)
	l.stats[newSeg] = st
	l.active = &activeSegment{name: p.newName, seg: newSeg, f: p.newFile, stats: st}
	return nil
}

// statsMatchFile reports whether st covers the whole file at path.
func statsMatchFile(st *segStats, path string) bool {
	fi, err := fsutil.Stat(path)
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
