package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// compareTree walks the storage root after the last op, applies the
// README 7 normalisations and compares directories and files (size,
// sha256) with case.json's expected listing.
func compareTree(t *testing.T, c *caseSpec, root string) {
	norm := newNormaliser(root)
	var dirs []string
	files := map[string]fileInfo{}
	contents := map[string][]byte{}
	err := walkTree(root, func(rel string, isDir bool, _ int64) {
		if isDir {
			dirs = append(dirs, rel)
			return
		}
		p, keep := norm.path(rel, false)
		if !keep {
			return
		}
		data, err := os.ReadFile(root + "/" + rel)
		if err != nil {
			t.Errorf("final tree: %v", err)
			return
		}
		data = norm.content(p, data)
		sum := sha256.Sum256(data)
		files[p] = fileInfo{Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
		contents[p] = data
	})
	if err != nil {
		t.Errorf("final tree: %v", err)
		return
	}

	want := c.Meta.Expected
	missing, extra := setDiff(want.Dirs, dirs)
	for _, d := range missing {
		t.Errorf("final tree: directory %s/ missing", d)
	}
	for _, d := range extra {
		t.Errorf("final tree: unexpected directory %s/", d)
	}
	var wantNames, gotNames []string
	for p := range want.Files {
		wantNames = append(wantNames, p)
	}
	for p := range files {
		gotNames = append(gotNames, p)
	}
	missing, extra = setDiff(wantNames, gotNames)
	for _, p := range missing {
		t.Errorf("final tree: file %s missing (want %d bytes)", p, want.Files[p].Size)
	}
	for _, p := range extra {
		t.Errorf("final tree: unexpected file %s (%d bytes): %s", p, files[p].Size, clip(contents[p], 300))
	}
	sort.Strings(wantNames)
	for _, p := range wantNames {
		got, ok := files[p]
		if !ok || got == want.Files[p] {
			continue
		}
		expected, err := os.ReadFile(filepath.Join(c.Dir, "expected", p))
		if err != nil {
			expected = []byte("(expected/" + p + " unreadable: " + err.Error() + ")")
		}
		t.Errorf("final tree: file %s differs (%d bytes, want %d)\n%s", p, got.Size, want.Files[p].Size,
			describeDiff(contents[p], expected))
	}
}

// setDiff returns the members of want not in got and of got not in want, sorted.
func setDiff(want, got []string) (missing, extra []string) {
	in := func(list []string) map[string]bool {
		m := make(map[string]bool, len(list))
		for _, s := range list {
			m[s] = true
		}
		return m
	}
	w, g := in(want), in(got)
	for s := range w {
		if !g[s] {
			missing = append(missing, s)
		}
	}
	for s := range g {
		if !w[s] {
			extra = append(extra, s)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}
