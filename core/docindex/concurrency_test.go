package docindex

import (
	"sync"
	"testing"
)

// TestConcurrentLookupsAndWrites runs lookups (no lock, as the mount's
// readers) while one goroutine writes, reloads and rebuilds.
func TestConcurrentLookupsAndWrites(t *testing.T) {
	dir := t.TempDir() + "/c"
	s := newMiniStore(t, dir)
	must(t, s.m.Define([]Definition{{Field: "kind"}, {Field: "tag"}, {Field: "n", Range: true}}))
	must(t, s.m.Sync(true, s.source()))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, _, err := s.m.EqualityIDs("kind", "page"); err != nil {
					t.Error(err)
					return
				}
				_, _ = compoundIDs(s.m, "tag", "x", "kind", "page")
				if _, err := s.m.RangeScan("n", "", "", func(string, any, []string) error { return nil }); err != nil {
					t.Error(err)
					return
				}
				_ = s.m.Definitions()
			}
		}()
	}
	for i := 0; i < 40; i++ {
		must(t, s.put(rangeID(i), obj("kind", "page", "tag", "x", "n", int64(i))))
		if i%10 == 0 {
			_, _, err := s.m.Rebuild(s.source())
			must(t, err)
		}
	}
	close(stop)
	wg.Wait()
	ids, _, err := s.m.EqualityIDs("kind", "page")
	must(t, err)
	if len(ids) != 40 {
		t.Errorf("%d ids", len(ids))
	}
}
