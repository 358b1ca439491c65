package seglog

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/phpjson"
)

var updateWriteTree = flag.Bool("update-write-tree", false, "rewrite testdata/write_tree.golden")

// The write path's bytes on disk are pinned: a fixed sequence of puts,
// deletes, bulk appends, rolls, compactions and a retention run must leave
// exactly the tree recorded in testdata/write_tree.golden (written by the
// code before the session-3 roll changes). Compaction tokens are random,
// so "compact-<token>-" reads "compact-T-" in names and contents; writer
// markers (pid, random) are left out.
func TestWriteTreeGolden(t *testing.T) {
	root := t.TempDir()
	now := time.UnixMilli(1716384278000 + 400*86400*1000)
	seq := 0
	opts := Options{
		MaxSegmentBytes:     700,
		SparseIndexInterval: 3,
		Now:                 func() time.Time { return now },
		NewID: func() (string, error) {
			seq++
			return fmt.Sprintf("018f9e5d-%04x-7abc-8def-%012x", seq, seq), nil
		},
	}
	l, err := Open(root, "events", opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 12; i++ {
		if _, err := l.Put(treeData(i), testID(i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range []int{3, 7, 40} {
		if err := l.Delete(testID(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.AppendMany(treeRows(100, 200)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(treeData(5), testID(5)); err != nil { // an update, out of order
		t.Fatal(err)
	}
	if err := l.Compact(); err != nil {
		t.Fatal(err)
	}
	rows := treeRows(400, 60)
	if _, err := l.AppendStream(func() (phpjson.Value, bool, error) {
		if len(rows) == 0 {
			return nil, false, nil
		}
		r := rows[0]
		rows = rows[1:]
		return r, true, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AppendMany([]phpjson.Value{treeData(1), treeData(2)}); err != nil { // generated ids
		t.Fatal(err)
	}
	r := l.Retain()
	r.OlderThanMs(1716384278000 + 30)
	if _, err := r.Compact(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AppendMany(treeRows(600, 25)); err != nil {
		t.Fatal(err)
	}
	l.Close()

	got := treeDigest(t, root)
	golden := "testdata/write_tree.golden"
	if *updateWriteTree {
		if err := os.MkdirAll("testdata", 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("tree differs from %s:\n got:\n%s\nwant:\n%s", golden, got, want)
	}
}

func treeData(i int) *phpjson.Array {
	a := phpjson.NewArray(4)
	a.SetString("n", int64(i))
	a.SetString("f", float64(i)/3)
	a.SetString("s", strings.Repeat("é/\"", i%5))
	tags := phpjson.NewArray(2)
	tags.Append("t")
	tags.Append(i%2 == 0)
	a.SetString("tags", tags)
	return a
}

// treeRows are n appendMany rows {"id","data"} from id number first on;
// every fifth is a bare data array (the whole row is the data).
func treeRows(first, n int) []phpjson.Value {
	rows := make([]phpjson.Value, n)
	for i := range rows {
		r := phpjson.NewArray(2)
		r.SetString("id", testID(first+i))
		if i%5 == 4 {
			r.SetString("x", int64(i))
		} else {
			r.SetString("data", treeData(first+i))
		}
		rows[i] = r
	}
	return rows
}

var compactTokenRE = regexp.MustCompile(`compact-[0-9a-f]{8}-`)

// treeDigest lists every file under root (writer markers excepted) with
// its size and SHA-256, compaction tokens normalised.
func treeDigest(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(path, "/.storh/writers/") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b = compactTokenRE.ReplaceAll(b, []byte("compact-T-"))
		rel := compactTokenRE.ReplaceAllString(strings.TrimPrefix(path, root), "compact-T-")
		lines = append(lines, fmt.Sprintf("%s %d %x", rel, len(b), sha256.Sum256(b)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}
