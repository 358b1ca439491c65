package docindex

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// rebuildGoldenPath holds the digest of the tree that the original
// (sequential, PHP-shaped) Rebuild produced for goldenRecords. It pins the
// rebuild's bytes and its file and directory set: regenerate it only with
// STORH_UPDATE_GOLDEN=1 and only when the PHP behaviour itself changes.
const rebuildGoldenPath = "testdata/rebuild_golden.txt"

// goldenRecords mixes every indexable kind (ints of both signs, floats
// including -0.0 and huge magnitudes, short/long/escaped strings, bools,
// null), non-indexable arrays and missing fields; 20,000 records give more
// range lines than one chunk holds, across two range fields.
func goldenRecords() []benchRecord {
	const n = 20000
	recs := make([]benchRecord, n)
	for i := range recs {
		a := phpjson.NewArray(8)
		a.SetString("kind", fmt.Sprintf("kind-%d", i%7))
		switch i % 5 {
		case 0:
			a.SetString("tag", int64(i%13-6))
		case 1:
			a.SetString("tag", []float64{math.Copysign(0, -1), 0.1, 1e300, -2.5e-7}[i%4])
		case 2:
			a.SetString("tag", strings.Repeat("long\"\\é", 20)+fmt.Sprint(i%3))
		case 3:
			a.SetString("tag", i%2 == 0)
		case 4:
			a.SetString("tag", nil)
		}
		if i%11 != 0 {
			a.SetString("color", []string{"red", "green", "blue\n", "</x>"}[i%4])
		} else {
			list := phpjson.NewArray(1)
			list.Append("not indexable")
			a.SetString("color", list)
		}
		a.SetString("email", fmt.Sprintf("user%d@example.org", i%40)) // unique only by declaration: rebuilds do not check
		switch i % 4 {
		case 0:
			a.SetString("n", int64(i*7919%n-n/2))
		case 1:
			a.SetString("n", float64(i)/7)
		case 2:
			a.SetString("n", fmt.Sprintf("s%d", i%100))
		case 3:
			a.SetString("n", []phpjson.Value{nil, true, false, int64(math.MaxInt64)}[i/4%4])
		}
		if i%3 == 0 {
			a.SetString("slot", int64(i))
		}
		recs[i] = benchRecord{rangeID(i), a}
	}
	return recs
}

// shuffledSource yields recs in a fixed non-id order, the first record
// twice (sources are not trusted to be sorted or duplicate-free).
func shuffledSource(recs []benchRecord) RecordSource {
	return func(yield func(string, *phpjson.Array) error) error {
		if err := yield(recs[0].id, recs[0].data); err != nil {
			return err
		}
		for i := range recs {
			r := recs[i*7919%len(recs)]
			if err := yield(r.id, r.data); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestRebuildGolden rebuilds goldenRecords with PHP's memory limits and
// with small ones (several mid-rebuild equality flushes that merge into
// files already written, a dozen range chunks): both trees must be the
// original rebuild's, byte for byte.
func TestRebuildGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits rebuildLimits
	}{
		{"php-limits", rebuildLimits{eqFlushIDs, rangeChunkEntries}},
		{"small-limits", rebuildLimits{eqFlushIDs: 30000, rangeChunkEntries: 3000}},
	} {
		t.Run(tc.name, func(t *testing.T) { testRebuildGolden(t, tc.limits) })
	}
}

func testRebuildGolden(t *testing.T, limits rebuildLimits) {
	dir := t.TempDir() + "/c"
	m, _ := Open(dir, nil)
	m.limits = limits
	must(t, m.Define([]Definition{
		{Field: "kind"}, {Field: "tag"}, {Field: "color"},
		{Field: "email", Unique: true},
		{Field: "n", Range: true},
		{Field: "slot", Range: true, Unique: true},
	}))
	must(t, m.Sync(false, nil))
	recs := goldenRecords()
	// The first rebuild leaves a full tree for the second one to delete.
	if _, _, err := m.Rebuild(shuffledSource(recs[:500])); err != nil {
		t.Fatal(err)
	}
	fields, entries, err := m.Rebuild(shuffledSource(recs))
	if err != nil {
		t.Fatal(err)
	}
	if fields != 6 || entries != len(recs)+1 {
		t.Errorf("Rebuild = %d fields, %d entries", fields, entries)
	}
	got := treeDigest(treeFiles(t, m.paths.indexes()))
	if os.Getenv("STORH_UPDATE_GOLDEN") == "1" && limits.eqFlushIDs == eqFlushIDs {
		must(t, os.WriteFile(rebuildGoldenPath, []byte(got), 0o666))
		return
	}
	want, err := os.ReadFile(rebuildGoldenPath)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("tree differs from %s at line %d:\n got: %s\nwant: %s", rebuildGoldenPath, i+1, g, w)
			}
		}
	}
}

// treeDigest lists every directory ("path/") and file ("path size sha256")
// of a treeFiles map, sorted.
func treeDigest(tree map[string][]byte) string {
	lines := make([]string, 0, len(tree))
	for p, content := range tree {
		if strings.HasSuffix(p, "/") {
			lines = append(lines, p)
			continue
		}
		sum := sha256.Sum256(content)
		lines = append(lines, fmt.Sprintf("%s %d %s", p, len(content), hex.EncodeToString(sum[:])))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}
