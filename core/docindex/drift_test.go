package docindex

import (
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// goldenIndexes are the definitions of goldenRecords' tree.
var goldenIndexes = []Definition{
	{Field: "kind"}, {Field: "tag"}, {Field: "color"},
	{Field: "email", Unique: true},
	{Field: "n", Range: true},
	{Field: "slot", Range: true, Unique: true},
}

// goldenRefs are every index of goldenIndexes, in Verify's order.
var goldenRefs = []IndexRef{
	{Kind: KindUnique, Field: "email"},
	{Kind: KindEquality, Field: "color"}, {Kind: KindEquality, Field: "kind"}, {Kind: KindEquality, Field: "tag"},
	{Kind: KindRange, Field: "n"}, {Kind: KindRange, Field: "slot"},
	{Kind: KindCompound, Field: "color", Right: "kind"}, {Kind: KindCompound, Field: "color", Right: "tag"},
	{Kind: KindCompound, Field: "kind", Right: "tag"},
}

func newGoldenManager(t *testing.T, recs []benchRecord) *Manager {
	t.Helper()
	m, _ := Open(t.TempDir()+"/c", nil)
	m.limits = rebuildLimits{eqFlushIDs: 3000, rangeChunkEntries: 1000} // flushes and chunks
	must(t, m.Define(goldenIndexes))
	must(t, m.Sync(false, nil))
	if _, _, err := m.Rebuild(sliceSource(recs)); err != nil {
		t.Fatal(err)
	}
	return m
}

// Rebuilding one index after its files were lost or damaged gives the
// bytes a full rebuild gives, and leaves every other index file alone.
func TestRebuildIndexesEqualsFullRebuild(t *testing.T) {
	recs := goldenRecords()[:5000]
	m := newGoldenManager(t, recs)
	want := treeFiles(t, m.paths.indexes())
	for _, ref := range goldenRefs {
		t.Run(ref.String(), func(t *testing.T) {
			before := inodes(t, m.paths.entries())
			damage(t, m, ref)
			if _, err := m.RebuildIndexes(sliceSource(recs), []IndexRef{ref}); err != nil {
				t.Fatal(err)
			}
			compareTrees(t, treeFiles(t, m.paths.indexes()), want)
			for path, ino := range inodes(t, m.paths.entries()) {
				if old, ok := before[path]; ok && old != ino && !belongsTo(m, ref, path) {
					t.Errorf("%s was rewritten, but it is not part of %s", path, ref)
				}
			}
		})
	}
}

// damage drops an entry file (or range line) of ref, adds one for a record
// that does not exist, and leaves a dead rebuild's chunk for range fields.
func damage(t *testing.T, m *Manager, ref IndexRef) {
	t.Helper()
	ghost := rangeID(999999)
	switch ref.Kind {
	case KindRange:
		main := m.paths.rangeMain(ref.Field)
		b, err := os.ReadFile(main)
		must(t, err)
		lines := strings.SplitAfter(string(b), "\n")
		must(t, os.WriteFile(main, []byte(strings.Join(lines[1:], "")), 0o666))
		must(t, os.WriteFile(m.paths.rangeDelta(ref.Field),
			[]byte(`{"key":"n-00000000000000001d000000","value":1,"count":1,"ids":["`+ghost+`"],"remove":[]}`+"\n"), 0o666))
		must(t, os.WriteFile(m.paths.chunk(ref.Field, 7), []byte("stale\n"), 0o666))
	default:
		dir := m.paths.eqDir(ref.Field)
		if ref.Kind == KindCompound {
			dir = m.paths.compoundDir(ref.Field, ref.Right)
		}
		list, err := os.ReadDir(dir)
		must(t, err)
		must(t, os.Remove(dir+"/"+list[0].Name()))
		must(t, os.WriteFile(dir+"/"+list[1].Name(), []byte("{broken"), 0o666))
	}
}

// belongsTo reports whether path is one of ref's files.
func belongsTo(m *Manager, ref IndexRef, path string) bool {
	switch ref.Kind {
	case KindRange:
		return strings.HasPrefix(path, m.paths.rangeDir()+"/"+FieldKey(ref.Field)+".")
	case KindCompound:
		return strings.HasPrefix(path, m.paths.compoundDir(ref.Field, ref.Right)+"/")
	}
	return strings.HasPrefix(path, m.paths.eqDir(ref.Field)+"/")
}

// inodes maps every file below root to its inode number (a rename of a
// new file over it changes the number).
func inodes(t *testing.T, root string) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	for rel, content := range treeFiles(t, root) {
		if content == nil && strings.HasSuffix(rel, "/") {
			continue
		}
		fi, err := os.Stat(root + "/" + rel)
		must(t, err)
		out[root+"/"+rel] = fi.Sys().(*syscall.Stat_t).Ino
	}
	return out
}

// Verify names each drifted index with what is wrong in it.
func TestVerifyReportsDriftPerIndex(t *testing.T) {
	dir := t.TempDir() + "/c"
	s := newMiniStore(t, dir)
	must(t, s.m.Define([]Definition{{Field: "slug", Unique: true}, {Field: "kind"}, {Field: "tag"}, {Field: "n", Range: true}}))
	must(t, s.m.Sync(false, nil))
	for i := 0; i < 6; i++ {
		d := phpjson.NewArray(4)
		d.SetString("slug", "s"+string(rune('a'+i)))
		d.SetString("kind", []string{"post", "page"}[i%2])
		d.SetString("tag", "t")
		d.SetString("n", int64(i))
		must(t, s.put(rangeID(i), d))
	}
	rep, err := s.m.Verify(s.source())
	must(t, err)
	if !rep.OK() || rep.Drift != nil {
		t.Fatalf("fresh store: %v %v", rep.Errors, rep.Drift)
	}

	ghost := rangeID(99)
	// kind: an id of a record that does not exist, in an existing entry.
	kindPost := s.m.paths.eqFile("kind", ValueKey("post"))
	b, err := os.ReadFile(kindPost)
	must(t, err)
	drifted := strings.Replace(strings.Replace(string(b), `"count":3`, `"count":4`, 1), `"ids":[`, `"ids":["`+ghost+`",`, 1)
	must(t, os.WriteFile(kindPost, []byte(drifted), 0o666))
	// slug: the entry of an existing record is gone.
	must(t, os.Remove(s.m.paths.eqFile("slug", ValueKey("sb"))))
	// n: a record's value dropped, a missing record's added.
	delta, err := os.OpenFile(s.m.paths.rangeDelta("n"), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = delta.WriteString(`{"key":"n-00000000000000003d000000","value":3,"count":-1,"ids":[],"remove":["` + rangeID(3) + `"]}` + "\n" +
		`{"key":"n-00000000000000007d000000","value":7,"count":1,"ids":["` + ghost + `"],"remove":[]}` + "\n")
	must(t, err)
	must(t, delta.Close())

	rep, err = s.m.Verify(s.source())
	must(t, err)
	want := []Drift{
		{Index: IndexRef{Kind: KindEquality, Field: "kind"}, Entries: 1, Extra: 1},
		{Index: IndexRef{Kind: KindUnique, Field: "slug"}, Entries: 1, Missing: 1},
		{Index: IndexRef{Kind: KindRange, Field: "n"}, Entries: 2, Missing: 1, Extra: 1},
	}
	if !reflect.DeepEqual(rep.Drift, want) {
		t.Fatalf("Drift = %+v\nwant %+v\nerrors %q", rep.Drift, want, rep.Errors)
	}
	if got := rep.Drift[0].String(); got != `equality index "kind": 1 entries differ from the records (0 ids missing, 1 extra)` {
		t.Errorf("String() = %q", got)
	}

	refs := make([]IndexRef, len(rep.Drift))
	for i, d := range rep.Drift {
		refs[i] = d.Index
	}
	if _, err := s.m.RebuildIndexes(s.source(), refs); err != nil {
		t.Fatal(err)
	}
	rep, err = s.m.Verify(s.source())
	must(t, err)
	if !rep.OK() || rep.Drift != nil {
		t.Fatalf("after RebuildIndexes: %q %+v", rep.Errors, rep.Drift)
	}
}
