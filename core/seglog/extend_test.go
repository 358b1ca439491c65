package seglog

import (
	"bytes"
	"slices"
	"testing"
)

func recordsBytes(t *testing.T, s *Snapshot) []byte {
	t.Helper()
	var b bytes.Buffer
	for line, err := range records(s) {
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
	}
	return b.Bytes()
}

func segmentView(t *testing.T, s *Snapshot, file string) []byte {
	t.Helper()
	var b bytes.Buffer
	for line, err := range s.SegmentLines(file).All() {
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
	}
	return b.Bytes()
}

// RecordsExtend and SegmentExtends say "extends" only where the older view
// is a byte prefix of the newer one: appends of new, increasing ids and
// rolls; not after an overwrite or a compaction.
func TestSnapshotExtends(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 300)
	defer l.Close()
	dir := root + "/events"
	snap := func() *Snapshot {
		s, err := NewReader(dir).Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	put := func(ids ...int) {
		for _, i := range ids {
			if _, err := l.Put(dataN(i), testID(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	put(1, 2, 3)
	a := snap()
	put(4, 5, 6, 7, 8) // rolls the active segment
	b := snap()
	if len(b.Segments()) <= len(a.Segments()) {
		t.Fatalf("no roll: %d segments, then %d", len(a.Segments()), len(b.Segments()))
	}
	if !b.RecordsExtend(a) {
		t.Error("appends of new ids (and a roll): records view not known to extend")
	}
	if ra, rb := recordsBytes(t, a), recordsBytes(t, b); !bytes.HasPrefix(rb, ra) || len(rb) == len(ra) {
		t.Errorf("the extended view is not a longer byte prefix: %d then %d bytes", len(ra), len(rb))
	}
	for _, seg := range a.Segments() {
		if !b.SegmentExtends(a, seg.File) {
			t.Errorf("segment %s not known to extend", seg.File)
		}
		if !bytes.HasPrefix(segmentView(t, b, seg.File), segmentView(t, a, seg.File)) {
			t.Errorf("segment %s: not a prefix", seg.File)
		}
	}
	if !b.RecordsExtend(b) {
		t.Error("a snapshot does not extend itself")
	}
	if a.RecordsExtend(b) {
		t.Error("an older snapshot extends a newer one")
	}

	put(2) // an overwrite moves id 2 to the end: not an append
	c := snap()
	if c.RecordsExtend(b) {
		t.Error("an overwrite counts as an append")
	}
	if err := l.Compact(); err != nil {
		t.Fatal(err)
	}
	d := snap()
	if d.RecordsExtend(c) {
		t.Error("a compaction counts as an append")
	}
	for _, seg := range c.Segments() {
		kept := slices.ContainsFunc(d.segments, func(s SegmentInfo) bool { return s.File == seg.File })
		if got := d.SegmentExtends(c, seg.File); got != kept {
			t.Errorf("segment %s (kept by the compaction: %v) extends: %v", seg.File, kept, got)
		}
	}
}

func TestSegmentGrew(t *testing.T) {
	old := SegmentInfo{File: "s", Ino: 7, ValidEnd: 100}
	for _, c := range []struct {
		name     string
		old, cur SegmentInfo
		want     bool
	}{
		{"grew", old, SegmentInfo{Ino: 7, ValidEnd: 150}, true},
		{"same", old, SegmentInfo{Ino: 7, ValidEnd: 100}, true},
		{"shrank", old, SegmentInfo{Ino: 7, ValidEnd: 50}, false},
		{"another file", old, SegmentInfo{Ino: 8, ValidEnd: 150}, false},
		{"inode unknown", SegmentInfo{ValidEnd: 100}, SegmentInfo{ValidEnd: 150}, false},
		{"unterminated tail may be rewritten", SegmentInfo{Ino: 7, ValidEnd: 100, Unterminated: true}, SegmentInfo{Ino: 7, ValidEnd: 100}, false},
		{"appeared", SegmentInfo{Missing: true}, SegmentInfo{Ino: 7, ValidEnd: 100}, false},
		{"missing in both", SegmentInfo{Missing: true}, SegmentInfo{Missing: true}, true},
	} {
		if got := segmentGrew(c.old, c.cur); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
