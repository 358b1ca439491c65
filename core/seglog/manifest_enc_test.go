package seglog

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"storhfs/core/phpjson"
)

// rollDoc applies to doc what rollLocked does.
func rollDoc(doc *phpjson.Array, n int64) {
	v, _ := doc.Lookup("sealed")
	list, ok := v.(*phpjson.Array)
	if !ok {
		list = phpjson.NewArray(1)
		doc.SetString("sealed", list)
	}
	st := newSegStats(0)
	st.add([]byte(testID(int(n))), 0)
	list.Append(sealedObj(segmentName(n), st, false))
	doc.SetString("nextSegment", n+2)
	doc.SetString("active", newActiveObj(segmentName(n+1)))
}

// The cached encoding equals the full one over a series of rolls, for
// PHP's manifests and for odd ones (foreign members, nested or non-object
// entries, a "sealed" object, numeric keys, an empty document).
func TestManifestEncoderMatchesFullEncoding(t *testing.T) {
	docs := map[string]string{
		"fresh":          `{"nextSegment":2,"sealed":[],"active":{"file":"seg-000001.ndjson","max":null,"min":null,"records":0,"ordered":true}}`,
		"foreign member": `{"x":{"y":[1,2.5,"z"]},"nextSegment":2,"sealed":[{"file":"a","extra":1.0}],"active":{"file":"seg-000001.ndjson"},"tail":"\u2028/é"}`,
		"nested entry":   `{"nextSegment":2,"sealed":[{"file":"a","deep":{"k":[1]}}],"active":{"file":"seg-000001.ndjson"}}`,
		"scalar entry":   `{"nextSegment":2,"sealed":[1,"two",null],"active":{"file":"seg-000001.ndjson"}}`,
		"sealed object":  `{"nextSegment":2,"sealed":{"a":{"file":"a"}},"active":{"file":"seg-000001.ndjson"}}`,
		"numeric key":    `{"nextSegment":2,"sealed":[],"active":{"file":"seg-000001.ndjson"}}`,
		"no sealed":      `{"nextSegment":"x","active":{"file":"seg-000001.ndjson"}}`,
		"empty":          `{}`,
	}
	for name, text := range docs {
		t.Run(name, func(t *testing.T) {
			m, err := parseManifest([]byte(text), "manifest.jsonc")
			if err != nil {
				t.Fatal(err)
			}
			if name == "numeric key" {
				m.doc.Set(phpjson.IntKey(7), int64(1))
			}
			var enc manifestEncoder
			for n := int64(1); n <= 5; n++ {
				if n > 1 {
					rollDoc(m.doc, n)
				}
				got, gerr := enc.encode(m.doc)
				want, werr := encodeManifest(m.doc)
				if (gerr == nil) != (werr == nil) || !bytes.Equal(got, want) {
					t.Fatalf("roll %d:\n got %s (%v)\nwant %s (%v)", n, got, gerr, want, werr)
				}
			}
			// A replaced list (compaction) and a re-read document start over.
			m.doc.SetString("sealed", phpjson.NewArray(0))
			rollDoc(m.doc, 9)
			got, _ := enc.encode(m.doc)
			if want, _ := encodeManifest(m.doc); !bytes.Equal(got, want) {
				t.Fatalf("after a replaced list:\n got %s\nwant %s", got, want)
			}
		})
	}
}

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
	if want, _ := encodeManifest(m.doc); !bytes.Equal(b, want) {
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
