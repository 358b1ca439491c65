package seglog

import (
	"fmt"
	"reflect"
	"testing"

	"storhfs/core/phpjson"
)

// afterRoll gives the manifest a full re-read of the rolled document
// gives, for PHP's manifests and odd ones, and leaves the manifest it
// started from as it was.
func TestAfterRollMatchesReparse(t *testing.T) {
	docs := map[string]string{
		"fresh":         `{"nextSegment":2,"sealed":[],"active":{"file":"seg-000001.ndjson","max":null,"min":null,"records":0,"ordered":true}}`,
		"scalar entry":  `{"nextSegment":2,"sealed":[1,{"records":3},{"file":"seg-000009.ndjson","index":7}],"active":{"file":"seg-000001.ndjson"}}`,
		"sealed object": `{"nextSegment":2,"sealed":{"a":{"file":"a"}},"active":{"file":"seg-000001.ndjson"}}`,
		"no sealed":     `{"nextSegment":"x","active":{"file":"seg-000001.ndjson"}}`,
		"no active":     `{"nextSegment":2,"sealed":[]}`,
		"empty":         `{}`,
	}
	for name, text := range docs {
		t.Run(name, func(t *testing.T) {
			m, err := parseManifest([]byte(text), manifestName)
			if err != nil {
				t.Fatal(err)
			}
			for n := int64(1); n <= 4; n++ {
				before := fmt.Sprintf("%+v %v %v", *m, m.sealed, m.withFile)
				v, _ := m.doc.Lookup("sealed")
				list, ok := v.(*phpjson.Array)
				if !ok || m.sealedList == nil {
					list = phpjson.NewArray(1)
					m.doc.SetString("sealed", list)
				}
				st := newSegStats(0)
				st.add([]byte(testID(int(n))), 0)
				sealed, active := sealedObj(m.activeFile(), st, false), newActiveObj(segmentName(n+1))
				list.Append(sealed)
				m.doc.SetString("nextSegment", n+2)
				m.doc.SetString("active", active)
				got := m.afterRoll(list, sealed, active, n+2)
				if after := fmt.Sprintf("%+v %v %v", *m, m.sealed, m.withFile); after != before {
					t.Fatalf("roll %d changed the old manifest:\n%s\n%s", n, before, after)
				}
				if want := manifestFromDoc(m.doc); !reflect.DeepEqual(got, want) {
					t.Fatalf("roll %d:\n got %+v\nwant %+v", n, got, want)
				}
				m = got
			}
		})
	}
}

// After a bulk append with many rolls the log's manifest is the one a
// re-read of its document gives.
func TestRollKeepsManifestView(t *testing.T) {
	l := openTest(t, t.TempDir(), 300)
	defer l.Close()
	if _, err := l.AppendMany(treeRows(1, 80)); err != nil {
		t.Fatal(err)
	}
	if len(l.man.sealed) < 10 {
		t.Fatalf("only %d rolls", len(l.man.sealed))
	}
	if want := manifestFromDoc(l.man.doc); !reflect.DeepEqual(l.man, want) {
		t.Fatalf("manifest view\n%+v\nwant %+v", l.man, want)
	}
}
