package seglog

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	"golang.org/x/sync/errgroup"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// Compact rewrites all live records into compact-<token>-NNNNNN segments
// and swaps the manifest (docs/format/segmentedlog.md §6.1). Old seg-* files are never deleted;
// unreferenced compact-* files go at the next open.
func (l *Log) Compact() error {
	return l.withLock(l.compactLocked)
}

func (l *Log) compactLocked() error {
	if err := l.recoverLocked(); err != nil {
		return err
	}
	if err := l.rollLocked(); err != nil {
		return err
	}
	if len(l.man.sealed) == 0 {
		l.man.doc.SetString("sealed", phpjson.NewArray(0))
		return l.rewriteManifest(l.man)
	}
	var tok [4]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return err
	}
	cw := &compactWriter{l: l, token: hex.EncodeToString(tok[:])}
	cw.finishing.SetLimit(maxFinishing)
	defer cw.abort()
	for _, e := range l.man.sealed {
		if !e.hasFile {
			continue
		}
		if err := cw.copySegment(e.file, l.segs.id(e.file)); err != nil {
			return err
		}
	}
	if err := cw.finish(); err != nil {
		return err
	}
	list := phpjson.NewArray(len(cw.outputs))
	for _, o := range cw.outputs {
		list.Append(sealedObj(o.name, o.stats, true))
	}
	l.man.doc.SetString("sealed", list)
	if err := l.rewriteManifest(l.man); err != nil {
		return err
	}
	// The outputs are the log now: the state index and stats are rebuilt
	// from them (the manifest's stats stay, being the same).
	return l.recoverLocked()
}

// compactWriter produces the compaction outputs of one run. An output is
// buffered in memory, and once full it is finished in the background
// (create, write, fsync, close, idx file) while the next one is filled;
// finish waits for all of them, so every output is durable before the
// manifest that references them is written. Outputs larger than
// bulkFlushBytes are created and written in chunks as they fill, as PHP
// does. Until that manifest no file of the run is referenced, so the
// order in which outputs reach the disk does not matter to a crash: the
// next open deletes them all.
type compactWriter struct {
	l       *Log
	token   string
	counter int64
	cur     *compactOutput
	outputs []*compactOutput
	buf     []byte
	payload []byte

	finishing errgroup.Group // outputs being finished, at most maxFinishing at once
}

// maxFinishing is how many outputs may be finishing in the background.
const maxFinishing = 4

type compactOutput struct {
	name  string
	f     *os.File // nil until created (finish, or a bulkFlushBytes flush)
	pos   int64
	buf   []byte
	stats *segStats
}

// copySegment copies the live put lines of one sealed segment.
func (cw *compactWriter) copySegment(file string, seg int32) error {
	l := cw.l
	f, err := fsutil.OpenFile(l.segDir+"/"+file, os.O_RDONLY, 0)
	if err != nil {
		return nil // missing segments are skipped, as in replay
	}
	defer f.Close()
	sc := newLineScanner(f, 0, -1, l.buf)
	for {
		line, off, ok := sc.line()
		if !ok {
			break
		}
		payload, err := frameFast(line)
		if err != nil {
			return err
		}
		terminated := line[len(line)-1] == '\n'
		op, idB, _, fast := fastEnvelope(payload)
		var env envelope
		if !fast || (op == opPut && !terminated) {
			if env, err = decodeEnvelope(payload); err != nil {
				return err
			}
			op, idB, fast = env.op, []byte(env.id), false
		}
		if op != opPut || !l.state.isCurrent(idB, seg, off) {
			continue
		}
		if !validIDBytes(idB) {
			return uuidv7.ErrInvalid
		}
		out := line
		if !terminated || !(fast || isArray(env.data)) {
			p, err := appendPutPayload(cw.payload[:0], idB, recordData(env.data), phpjson.DefaultDepth)
			if err != nil {
				return err
			}
			cw.payload = p
			cw.buf = AppendLine(cw.buf[:0], p)
			out = cw.buf
		}
		if err := cw.write(idB, out); err != nil {
			return err
		}
	}
	return sc.Err()
}

func isArray(v phpjson.Value) bool {
	_, ok := v.(*phpjson.Array)
	return ok
}

// write appends one line of id to the current output (opening the next
// one lazily) and finishes the output once it reaches the segment limit.
func (cw *compactWriter) write(id, line []byte) error {
	if cw.cur == nil {
		if err := cw.openNext(); err != nil {
			return err
		}
	}
	o := cw.cur
	o.stats.add(id, o.pos)
	o.buf = append(o.buf, line...)
	o.pos += int64(len(line))
	if len(o.buf) >= bulkFlushBytes {
		if err := o.flush(cw.l.segDir); err != nil {
			return err
		}
	}
	if o.pos >= cw.l.opts.MaxSegmentBytes {
		cw.finishCurrent()
	}
	return nil
}

func (cw *compactWriter) openNext() error {
	for {
		cw.counter++
		name := fmt.Sprintf("compact-%s-%06d.ndjson", cw.token, cw.counter)
		path := cw.l.segDir + "/" + name
		if fi, err := fsutil.Stat(path); err == nil && fi.Mode().IsRegular() {
			continue
		}
		cw.cur = &compactOutput{
			name:  name,
			stats: newSegStats(cw.l.opts.SparseIndexInterval),
			// An output is written when it reaches the segment limit or
			// bulkFlushBytes, whichever comes first, plus one line.
			buf: make([]byte, 0, min(cw.l.opts.MaxSegmentBytes, bulkFlushBytes)+4096),
		}
		cw.outputs = append(cw.outputs, cw.cur)
		return nil
	}
}

// flush creates the output file if needed (O_RDWR|O_CREAT, as PHP opens
// it) and writes the buffered lines.
func (o *compactOutput) flush(segDir string) error {
	if o.f == nil {
		f, err := fsutil.OpenFile(segDir+"/"+o.name, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return &SegmentOpenError{File: o.name, Err: err}
		}
		o.f = f
	}
	if len(o.buf) == 0 {
		return nil
	}
	_, err := o.f.Write(o.buf)
	o.buf = o.buf[:0]
	return err
}

// finishCurrent hands the current output to a background finisher.
func (cw *compactWriter) finishCurrent() {
	o := cw.cur
	cw.cur = nil
	o.stats.end = o.pos
	segDir := cw.l.segDir
	idxPath := segDir + "/" + indexNameFor(o.name)
	cw.finishing.Go(func() error { return o.finish(segDir, idxPath) })
}

// finish writes what is buffered of an output (creating it if needed),
// fsyncs and closes it, and writes its idx file.
func (o *compactOutput) finish(segDir, idxPath string) error {
	err := o.flush(segDir)
	o.buf = nil // outputs stay listed until the run ends: keep no buffer
	if err != nil {
		if o.f != nil {
			o.f.Close()
		}
		return err
	}
	f := o.f
	o.f = nil
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return writeSparse(idxPath, o.stats.sparse)
}

// finish finishes the last output and waits until every output is durable.
func (cw *compactWriter) finish() error {
	if cw.cur != nil {
		cw.finishCurrent()
	}
	return cw.finishing.Wait()
}

// abort waits for the background finishers and closes an unfinished
// output (its files stay until the next open).
func (cw *compactWriter) abort() {
	_ = cw.finishing.Wait() // finish reported its error
	if cw.cur != nil && cw.cur.f != nil {
		cw.cur.f.Close()
	}
}

// Retention is retain() (docs/format/segmentedlog.md §6.3).
type Retention struct {
	l         *Log
	cutoff    int64
	hasCutoff bool
}

// Retain starts a retention run.
func (l *Log) Retain() *Retention { return &Retention{l: l} }

// OlderThanDays sets the cutoff to floor((now - d*86400) * 1000) ms, now in
// whole seconds.
func (r *Retention) OlderThanDays(d int64) error {
	if d < 1 {
		return ErrRetentionDays
	}
	r.cutoff, r.hasCutoff = (r.l.opts.Now().Unix()-d*86400)*1000, true
	return nil
}

// OlderThanMs sets the cutoff in ms.
func (r *Retention) OlderThanMs(ts int64) { r.cutoff, r.hasCutoff = ts, true }

// Compact deletes every live record whose id timestamp <= cutoff (stream
// order), compacts, and returns the number of deletes. When the stream
// fails, the records it yielded before are deleted all the same and the
// stream's error is returned (PHP deletes while it streams).
func (r *Retention) Compact() (int, error) {
	if !r.hasCutoff {
		return 0, ErrNoCutoff
	}
	var q StreamQuery
	q.TimeRangeMs(nil, &r.cutoff)
	var ids []string
	streamErr := r.l.Stream(q, func(rec Record) error {
		ids = append(ids, rec.ID)
		return nil
	})
	if err := r.l.deleteMany(ids); err != nil {
		return 0, err
	}
	if streamErr != nil {
		return len(ids), streamErr
	}
	if err := r.l.Compact(); err != nil {
		return len(ids), err
	}
	return len(ids), nil
}
