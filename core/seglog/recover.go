package seglog

import (
	"bytes"
	"syscall"
	"time"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// fileStamp identifies one version of a file cheaply (size, mtime, inode).
type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

func stampOf(path string) (fileStamp, error) {
	fi, err := fsutil.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	st := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = sys.Ino
	}
	return st, nil
}

// recoverLocked is PHP's recover() body (lock held): replay every listed
// segment in recovery mode (truncating at the first invalid line), rebuild
// the state index, then rewrite every entry's stats in the manifest.
func (l *Log) recoverLocked() error {
	m, err := readManifest(l.dir)
	if err != nil {
		return err
	}
	return l.recoverFrom(m)
}

// recoverFrom is recoverLocked on the current manifest m, already read.
func (l *Log) recoverFrom(m *manifest) error {
	activePath := l.segDir + "/" + m.activeFile()
	if _, err := fsutil.Stat(activePath); isNotExist(err) {
		if err := touch(activePath); err != nil {
			return err
		}
	}
	l.dropActive()
	segs := newSegTable()
	state := newStateIndexFor(m)
	stats := map[int32]*segStats{}
	for _, e := range m.segments() {
		seg, interval := segs.id(e.file), int64(0)
		if e == m.active {
			interval = l.opts.SparseIndexInterval
		}
		r, err := replaySegment(l.segDir+"/"+e.file, seg, replayRecover, state, interval, l.buf)
		if err != nil {
			return err // later segments are neither read nor truncated
		}
		if r.missing {
			e.setStats(nil)
		} else {
			stats[seg] = r.stats
			e.setStats(r.stats)
		}
	}
	if err := l.rewriteManifest(m); err != nil {
		return err
	}
	l.segs, l.state, l.stats = segs, state, stats
	return nil
}

// adoptManifest makes doc, just written (or found on disk as is), the
// current manifest.
func (l *Log) adoptManifest(doc *phpjson.Array) {
	l.man = manifestFromDoc(doc)
	l.manStat, _ = stampOf(l.dir + "/" + manifestName)
}

// rewriteManifest writes m.doc and makes it the current manifest, as PHP
// does at every open (docs/format/segmentedlog.md §4.1) and compaction, except when
// manifest.jsonc already holds exactly the bytes it would write (the
// common case: nothing changed since the last open). Then the file and its
// directory are only fsynced, which leaves the same content as durable as
// a rewrite would; the file keeps its inode and mtime, so readers that
// watch it see no change, as there is none. The lock is held: no writer
// can change the file between the comparison and the syncs.
func (l *Log) rewriteManifest(m *manifest) error {
	path := l.dir + "/" + manifestName
	want, err := phpjson.EncodeCompactObject(m.doc)
	if err != nil {
		return err
	}
	if have, rerr := fsutil.ReadFile(path); rerr == nil && bytes.Equal(have, want) {
		err = fsutil.FsyncPath(path)
		if err == nil {
			err = fsutil.FsyncDir(l.dir)
		}
	} else {
		err = fsutil.WriteAtomic(path, want)
	}
	if err != nil {
		return err
	}
	l.adoptManifest(m.doc)
	return nil
}

// refreshManifest re-reads the manifest if it changed on disk (lock held).
func (l *Log) refreshManifest() error {
	st, err := stampOf(l.dir + "/" + manifestName)
	if err == nil && l.man != nil && st == l.manStat {
		return nil
	}
	m, err := readManifest(l.dir)
	if err != nil {
		return err
	}
	l.man = m
	l.manStat = st
	if l.active != nil && l.active.name != m.activeFile() {
		l.dropActive()
	}
	return nil
}

// Recover is PHP's recover(): under the lock, replay with truncation and
// rewrite the manifest stats.
func (l *Log) Recover() error { return l.withLock(l.recoverLocked) }
