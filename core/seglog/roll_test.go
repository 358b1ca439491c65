package seglog

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// After many rolls of one bulk append the manifest on disk is the full
// encoding of its own content (what PHP would write for it).
func TestRollManifestBytes(t *testing.T) {
	root := t.TempDir()
	l, err := Open(root, "events", Options{MaxSegmentBytes: 256, SparseIndexInterval: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]phpjson.Value, 60)
	for i := range rows {
		r := phpjson.NewArray(2)
		r.SetString("id", testID(i+1))
		d := phpjson.NewArray(1)
		d.SetString("n", int64(i))
		r.SetString("data", d)
		rows[i] = r
	}
	if _, err := l.AppendMany(rows); err != nil {
		t.Fatal(err)
	}
	l.Close()
	b, err := os.ReadFile(root + "/events/" + manifestName)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseManifest(b, manifestName)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.sealed) < 10 {
		t.Fatalf("only %d rolls", len(m.sealed))
	}
	if want, _ := phpjson.EncodeCompactObject(m.doc); !bytes.Equal(b, want) {
		t.Fatalf("manifest\n%s\nis not its own encoding\n%s", b, want)
	}
	l2, err := Open(root, "events", Options{MaxSegmentBytes: 256, SparseIndexInterval: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if l2.state.live != len(rows) {
		t.Fatalf("reopened with %d live records, want %d", l2.state.live, len(rows))
	}
}

// A roll that cannot create the next segment (a directory holds its name)
// fails without committing anything: the manifest on disk still names the
// old active segment, no manifest temp file is left, the lines written
// before the roll are durable, and the instance works again once the name
// is free.
func TestRollFailureCommitsNothing(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 256)
	defer l.Close()
	dir := root + "/events"
	before, err := os.ReadFile(dir + "/" + manifestName)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir+"/segments/seg-000002.ndjson", 0o777); err != nil {
		t.Fatal(err)
	}
	n := 0
	for ; n < 20; n++ {
		if _, err := l.Put(dataN(n), testID(n+1)); err != nil {
			break
		}
	}
	if n == 20 {
		t.Fatal("no put failed although the roll cannot create its segment")
	}
	if after, _ := os.ReadFile(dir + "/" + manifestName); !bytes.Equal(after, before) {
		t.Fatalf("manifest changed by a failed roll:\n%s\n%s", before, after)
	}
	if temps, _ := filepath.Glob(dir + "/.*.tmp"); len(temps) != 0 {
		t.Fatalf("temp files left: %v", temps)
	}
	if err := os.Remove(dir + "/segments/seg-000002.ndjson"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(dataN(99), testID(99)); err != nil {
		t.Fatalf("put after the name was freed: %v", err)
	}
	l2 := openTest(t, root, 256)
	defer l2.Close()
	for i := 1; i <= n+1; i++ { // every acknowledged put, plus the one whose roll failed
		if r, err := l2.Get(testID(i)); err != nil || r == nil {
			t.Fatalf("record %d after reopen: %v %v", i, r, err)
		}
	}
	if r, err := l2.Get(testID(99)); err != nil || r == nil {
		t.Fatalf("record 99 after reopen: %v %v", r, err)
	}
}
