package docstore

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// Two Stores on one collection (separate flock descriptors, as two
// processes would have) race puts of distinct ids with the same unique
// values: each value must be taken by exactly one id.
func TestConcurrentStoresUniqueIndex(t *testing.T) {
	root := t.TempDir()
	a := openStore(t, root)
	b := openStore(t, root)
	if err := a.SyncIndexes([]docindex.Definition{{Field: "slug", Unique: true}}, true); err != nil {
		t.Fatal(err)
	}
	const values, perValue = 20, 4
	gen := uuidv7.NewGenerator(nil, nil)
	var mu sync.Mutex
	wins := map[string]int{}
	var wg sync.WaitGroup
	for w := 0; w < perValue; w++ {
		s := a
		if w%2 == 1 {
			s = b
		}
		ids := make([]string, values)
		for i := range ids {
			id, err := gen.New()
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = id
		}
		wg.Add(1)
		go func(s *Store, ids []string) {
			defer wg.Done()
			for i, id := range ids {
				slug := fmt.Sprintf("slug-%d", i)
				var err error
				if i%2 == 0 {
					_, err = s.Put(obj("slug", slug), id)
				} else {
					err = s.PutRaw(id, []byte(`{"id":"`+id+`","data":{"slug":"`+slug+`"}}`))
				}
				switch {
				case err == nil:
					mu.Lock()
					wins[slug]++
					mu.Unlock()
				case !errors.Is(err, ErrUniqueViolation):
					t.Errorf("put %s: %v", id, err)
				}
			}
		}(s, ids)
	}
	wg.Wait()
	for i := 0; i < values; i++ {
		if n := wins[fmt.Sprintf("slug-%d", i)]; n != 1 {
			t.Errorf("slug-%d written by %d ids", i, n)
		}
	}
	v, err := a.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := v.Lookup("ok"); ok != true {
		t.Fatalf("verify %s", mustJSON(t, v))
	}
	st, _ := b.Stats()
	if rec, _ := st.Lookup("records"); rec != int64(values) {
		t.Fatalf("stats %s", mustJSON(t, st))
	}
}
