package seglog

import (
	"bytes"
	"slices"
)

// segStats are the scan statistics of one segment (docs/format/segmentedlog.md §1.4): lines
// (tombstones included), byte-wise min/max id, whether ids never decrease,
// and optionally the sparse index offsets (every interval-th line).
// min, max and last are reused buffers so that adding a line allocates
// nothing.
type segStats struct {
	records int64
	minB    []byte
	maxB    []byte
	last    []byte // the last id, kept once ordered is false (until then it is maxB)
	ordered bool

	end      int64         // byte end of the last line added
	interval int64         // 0 = do not collect sparse entries
	sparse   []sparseEntry // ordinal % interval == 0
}

func newSegStats(interval int64) *segStats {
	return &segStats{ordered: true, interval: interval}
}

// add records one line with id at byte offset off.
func (s *segStats) add(id []byte, off int64) {
	if s.interval > 0 && s.records%s.interval == 0 {
		s.sparse = append(s.sparse, sparseEntry{ID: string(id), Offset: off})
	}
	switch {
	case s.records == 0:
		s.minB = append(s.minB[:0], id...)
		s.maxB = append(s.maxB[:0], id...)
	case s.ordered && string(id) >= string(s.maxB):
		// While ids never decreased, the last one is the max and the
		// first the min: one comparison, one copy (last is not kept).
		s.maxB = append(s.maxB[:0], id...)
	default:
		last := s.last
		if s.ordered {
			last = s.maxB
		}
		if string(id) < string(last) {
			s.ordered = false
		}
		if string(id) < string(s.minB) {
			s.minB = append(s.minB[:0], id...)
		}
		if string(id) > string(s.maxB) {
			s.maxB = append(s.maxB[:0], id...)
		}
		s.last = append(s.last[:0], id...)
	}
	s.records++
}

// clone is a copy of s that adding lines to leaves s unchanged.
func (s *segStats) clone() *segStats {
	c := *s
	c.minB, c.maxB, c.last = bytes.Clone(s.minB), bytes.Clone(s.maxB), bytes.Clone(s.last)
	c.sparse = slices.Clone(s.sparse)
	return &c
}

func (s *segStats) min() string { return string(s.minB) }
func (s *segStats) max() string { return string(s.maxB) }
