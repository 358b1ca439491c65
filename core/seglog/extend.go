package seglog

import "slices"

// A newer snapshot of the same log "extends" an older one when the older
// one's view is a byte prefix of the newer one's. The checks below tell it
// from the two replays alone, without rendering either view, and only in
// the cases where storh's own rules make it certain: a valid prefix of a
// segment file that ends with "\n" is never rewritten in place (appends go
// after it, recovery truncates only past it). false means "not known", not
// "not a prefix".

// RecordsExtend reports whether s's records view is prev's followed by
// more lines: both are append-only logs of increasing ids with canonical
// lines (KnownRecordsSize), so every valid line is rendered, in file
// order; prev's segments come first in s, in the same order, as the very
// same files; each but prev's last has the same valid prefix, and prev's
// last grew or stayed.
func (s *Snapshot) RecordsExtend(prev *Snapshot) bool {
	if _, ok := prev.KnownRecordsSize(); !ok {
		return false
	}
	if _, ok := s.KnownRecordsSize(); !ok || len(s.segments) < len(prev.segments) {
		return false
	}
	for i, old := range prev.segments {
		cur := s.segments[i]
		if cur.File != old.File || !segmentGrew(old, cur) {
			return false
		}
		if i < len(prev.segments)-1 && cur.ValidEnd != old.ValidEnd {
			return false
		}
	}
	return true
}

// SegmentExtends reports whether segment file's payload view in s is its
// view in prev followed by more lines.
func (s *Snapshot) SegmentExtends(prev *Snapshot, file string) bool {
	byFile := func(seg SegmentInfo) bool { return seg.File == file }
	i, j := slices.IndexFunc(prev.segments, byFile), slices.IndexFunc(s.segments, byFile)
	return i >= 0 && j >= 0 && segmentGrew(prev.segments[i], s.segments[j])
}

// segmentGrew: cur is the same file as old (or both are missing) and its
// valid prefix starts with old's, which ended with a complete line.
func segmentGrew(old, cur SegmentInfo) bool {
	if old.Missing || cur.Missing {
		return old.Missing && cur.Missing
	}
	return old.Ino != 0 && old.Ino == cur.Ino && !old.Unterminated && cur.ValidEnd >= old.ValidEnd
}
