package seglog

import "github.com/storhfs/storhfs/core/fsutil"

// Read-only stats() and verify(): what a PHP instance freshly opened on
// the directory would return, computed without the open's side effects.
//
// A PHP open truncates every segment at its first invalid line (fast-path
// validation) and then replays the rest; a Snapshot replays the same valid
// prefixes without truncating, so its state index is the one that open
// would build. stats() and verify() then look at the files as they are:
// bytes counts the torn tails, and verify's full replay and stream meet
// the invalid lines that the open would have cut. One corrupt line
// therefore usually gives two errors (replay, then stream), as storh's
// verify() on an instance that opened before the corruption.

// SnapshotAsOpened is Snapshot for a directory as PHP's open would leave
// it, without creating anything: a missing manifest.jsonc (or a missing
// directory) reads as the initial manifest with the active segment
// seg-000001.ndjson, which is replayed if it exists (PHP's open keeps its
// content). Any other manifest read error is returned as is.
func (r *Reader) SnapshotAsOpened() (*Snapshot, error) {
	s, err := r.Snapshot()
	if err == nil || !isNotExist(err) {
		return s, err
	}
	if _, serr := fsutil.Stat(r.dir + "/" + manifestName); !isNotExist(serr) {
		return nil, err // the manifest exists: a segment or read error
	}
	s, _, err = r.snapshotOf(manifestFromDoc(initialManifestDoc()))
	return s, err
}

// Stats is PHP's stats() for the snapshot (docs/format/segmentedlog.md
// §4.5); bytes include torn tails.
func (s *Snapshot) Stats() Stats { return s.v.summary() }

// Verify is PHP's verify()/health() (docs/format/segmentedlog.md §5.3) of an instance whose state
// is the snapshot's: a full-decode replay of the files as they are now,
// compared with the state index; a strict drain of the stream to EOF of
// every segment; stats(). Nothing is locked, created or truncated. An
// active segment file that is missing is read as the empty file PHP's open
// would have created.
func (s *Snapshot) Verify() Health {
	h := Health{Errors: []string{}}
	full, err := s.fullView()
	if err != nil {
		h.Errors = append(h.Errors, err.Error())
		h.Stats = s.Stats()
		return h
	}
	v := *full
	v.man = withoutMissingActive(v.segDir, v.man)
	v.limits = nil // the stream reads every segment to EOF, past the valid prefix
	v.held = nil   // ... of the files as they are now
	v.buf = make([]byte, scanBufSize)
	h.Errors = v.verify()
	h.Stats = s.Stats()
	h.OK = len(h.Errors) == 0
	return h
}

// summary is stats() of the view: manifest entries, live and tombstoned
// ids of its state index, and the current size of the files the entries
// name (missing files count 0; an entry listed twice counts twice, as in
// PHP).
func (v *view) summary() Stats {
	st := Stats{Segments: v.man.entryCount(), Records: v.state.live, Deleted: v.state.deleted}
	for _, e := range v.man.segments() {
		if fi, err := fsutil.Stat(v.segDir + "/" + e.file); err == nil {
			st.Bytes += fi.Size()
		}
	}
	return st
}

// withoutMissingActive is m without the entries naming the active file
// (active.file, else seg-000001.ndjson) when that file does not exist:
// PHP's open creates it empty, so streaming it yields nothing. m itself
// is not modified.
func withoutMissingActive(segDir string, m *manifest) *manifest {
	name := m.activeFile()
	if _, err := fsutil.Stat(segDir + "/" + name); !isNotExist(err) {
		return m
	}
	out := *m
	out.sealed = nil
	for _, e := range m.sealed {
		if !e.hasFile || e.file != name {
			out.sealed = append(out.sealed, e)
		}
	}
	if m.active != nil && m.active.hasFile && m.active.file == name {
		out.active = nil
	}
	out.listSegments()
	return &out
}
