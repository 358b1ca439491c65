package docstore

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/phpjson"
)

// The mount's index folders answer what the query builder answers.
func TestViewsEqualIDs(t *testing.T) {
	s := openStore(t, t.TempDir())
	defs := []docindex.Definition{{Field: "kind"}, {Field: "slug", Unique: true}, {Field: "n", Range: true}}
	if err := s.SyncIndexes(defs, true); err != nil {
		t.Fatal(err)
	}
	ids := sequentialIDs(t, 6)
	values := []phpjson.Value{"post", "post", int64(1), 1.0, math.Copysign(0, -1), 0.0}
	for i, id := range ids {
		if _, err := s.Put(obj("kind", values[i], "slug", id, "n", i), id); err != nil {
			t.Fatal(err)
		}
	}
	fields, err := s.EqualityFields()
	if err != nil || !slices.Equal(fields, []string{"kind", "slug"}) {
		t.Fatalf("EqualityFields = %v, %v; want kind, slug (n is a range index)", fields, err)
	}
	got, err := s.EqualityValues("kind")
	if err != nil || len(got) != 5 {
		t.Fatalf("EqualityValues(kind) = %v, %v; want 5 distinct values", got, err)
	}
	for _, v := range []phpjson.Value{"post", int64(1), 1.0, 0.0, "none"} {
		eq, err := s.EqualIDs("kind", v)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		recs, err := s.Query().Where("kind", "eq", v).Get()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			want = append(want, r.ID)
		}
		if !slices.Equal(eq, want) {
			t.Errorf("EqualIDs(kind, %#v) = %v, query gives %v", v, eq, want)
		}
	}
	if eq, _ := s.EqualIDs("kind", 0.0); len(eq) != 2 {
		t.Errorf("EqualIDs(kind, 0.0) = %v: want both zeros (=== equal)", eq)
	}
	if n, err := s.EqualityCount("kind", "post"); err != nil || n != 2 {
		t.Errorf("EqualityCount(kind, post) = %d, %v; want 2", n, err)
	}
}

// ExportView writes exactly ExportJSONLTo's bytes, and its read-ahead
// ends with it, also when the writer fails early.
func TestViewsExportView(t *testing.T) {
	s := openStore(t, t.TempDir())
	for i, id := range sequentialIDs(t, 3000) {
		if _, err := s.Put(obj("n", i, "pad", strings.Repeat("x", i%500)), id); err != nil {
			t.Fatal(err)
		}
	}
	var plain, view bytes.Buffer
	n1, err1 := s.ExportJSONLTo(&plain)
	n2, err2 := s.ExportView(&view)
	if err1 != nil || err2 != nil || n1 != n2 || !bytes.Equal(plain.Bytes(), view.Bytes()) {
		t.Fatalf("ExportView = %d lines, %v; ExportJSONLTo = %d, %v; same bytes: %v", n2, err2, n1, err1, bytes.Equal(plain.Bytes(), view.Bytes()))
	}
	before := runtime.NumGoroutine()
	boom := errors.New("reader gone")
	if _, err := s.ExportView(failingWriter{boom}); !errors.Is(err, boom) {
		t.Fatalf("ExportView into a failing writer = %v, want %v", err, boom)
	}
	// Goroutines that signalled their end may take a moment to exit.
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines 5 s after ExportView returned, %d before", runtime.NumGoroutine(), before)
		}
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// delayWalk hints every record as it is listed and passes it on window
// records later, in walk order, also when the walk fails or visit does.
func TestViewsDelayWalk(t *testing.T) {
	boom := errors.New("listing failed")
	walkErr := func(n int, err error) scanWalk {
		return func(visit func(scanned) error) error {
			for i := range n {
				if err := visit(scanned{recordFile: recordFile{path: strconv.Itoa(i)}}); err != nil {
					return err
				}
			}
			return err
		}
	}
	for _, n := range []int{0, 3, 4, 11} {
		for _, werr := range []error{nil, boom} {
			var hinted, visited []string
			err := delayWalk(walkErr(n, werr), 4, func(p string) { hinted = append(hinted, p) })(func(r scanned) error {
				if len(hinted) < min(len(visited)+1+4, n) {
					t.Fatalf("n=%d: record %s visited %d hints after its own", n, r.path, len(hinted)-len(visited)-1)
				}
				visited = append(visited, r.path)
				return nil
			})
			if err != werr || len(hinted) != n || !slices.Equal(hinted, visited) {
				t.Fatalf("n=%d: delayWalk = %v; hinted %v, visited %v", n, err, hinted, visited)
			}
		}
	}
	stop := errors.New("reader gone")
	visits := 0
	err := delayWalk(walkErr(11, nil), 4, func(string) {})(func(scanned) error {
		visits++
		return stop
	})
	if err != stop || visits != 1 {
		t.Fatalf("delayWalk after visit failed = %v with %d visits; want %v after 1", err, visits, stop)
	}
}

// The read-ahead runs while the export is slow, and stops once it is fast.
func TestViewsExportRate(t *testing.T) {
	start := time.Now()
	r := exportRate{cold: true, at: start}
	if !r.update(0, start.Add(rateSpan/2)) {
		t.Fatal("cold before the first span ended")
	}
	if r.update(int64(100*rateSpan.Milliseconds()), start.Add(rateSpan)) {
		t.Fatal("still cold at 100 records/ms")
	}
	if !r.update(int64(100*rateSpan.Milliseconds())+10, start.Add(2*rateSpan)) {
		t.Fatal("warm at well under a record/ms")
	}
}
