package fusefs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/storhfs/storhfs/shard"
)

// fakeStore is an in-memory RecordStore whose files live in a temp dir (so
// OpenRecord/StatRecord return real *os.File / FileInfo). PutRaw accepts
// content containing `"id":"<id>"` and rejects everything else.
type fakeStore struct {
	t   *testing.T
	dir string

	mu       sync.Mutex
	puts     int
	failPuts error // when set, PutRaw fails with it
	closed   bool

	// onOpen, when set, runs in OpenRecord once the file is open: the
	// caller reads what was stored at that moment, whatever is put next.
	onOpen func(id string)
}

var _ RecordStore = (*fakeStore)(nil)

var errFakeInvalid = errors.New("JSONC document must decode to an object.")

func newFakeStore(t *testing.T, ids ...string) *fakeStore {
	s := &fakeStore{t: t, dir: t.TempDir()}
	for _, id := range ids {
		if err := s.PutRaw(id, []byte(fmt.Sprintf(`{"id":"%s"}`, id))); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func (s *fakeStore) path(id string) string { return filepath.Join(s.dir, id) }

func (s *fakeStore) WalkIDs(after string, fn func(string) error) error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Name() > after && e.Name()[0] != '.' {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}

func (s *fakeStore) ListIDs(prev *shard.IDList, _ time.Time) (*shard.IDList, bool, error) {
	var ids []string
	if err := s.WalkIDs("", func(id string) error { ids = append(ids, id); return nil }); err != nil {
		return nil, false, err
	}
	return &shard.IDList{IDs: ids}, prev == nil || !slices.Equal(prev.IDs, ids), nil
}

func (s *fakeStore) StatRecord(id string) (os.FileInfo, error) { return os.Stat(s.path(id)) }
func (s *fakeStore) OpenRecord(id string) (*os.File, error) {
	f, err := os.Open(s.path(id))
	if err == nil && s.onOpen != nil {
		s.onOpen(id)
	}
	return f, err
}

func (s *fakeStore) PutRaw(id string, content []byte) error {
	if !bytes.Contains(content, []byte(`"id":"`+id+`"`)) {
		return fmt.Errorf("%s: %w (%w)", id, errFakeInvalid, ErrRejected)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failPuts != nil {
		return s.failPuts
	}
	if s.closed {
		return os.ErrClosed
	}
	s.puts++
	// Replace by rename, as the real store does: open files keep the old content.
	tmp := filepath.Join(s.dir, "."+id+".tmp") // not listed by WalkIDs
	if err := os.WriteFile(tmp, content, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, s.path(id))
}

func (s *fakeStore) PutRawNew(id string, content []byte) error {
	if _, err := os.Stat(s.path(id)); err == nil {
		return fmt.Errorf("%s: %w", id, fs.ErrExist)
	}
	return s.PutRaw(id, content)
}

func (s *fakeStore) Delete(id string) error { return os.Remove(s.path(id)) }

func (s *fakeStore) SetRecordTimes(id string, atime, mtime time.Time) error {
	return os.Chtimes(s.path(id), atime, mtime)
}

func (s *fakeStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

func (s *fakeStore) content(id string) string {
	b, err := os.ReadFile(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return "<missing>"
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

// fakeCatalog serves one collection "c" backed by store.
type fakeCatalog struct{ store RecordStore }

func (f fakeCatalog) Kind(rel string) Kind                           { return KindDocStore }
func (f fakeCatalog) List(rel string) ([]DirEntry, error)            { return nil, nil }
func (f fakeCatalog) Path(rel string) string                         { return os.TempDir() }
func (f fakeCatalog) Stat(rel string) (os.FileInfo, error)           { return os.Stat(os.TempDir()) }
func (f fakeCatalog) OpenDocStore(string, bool) (RecordStore, error) { return f.store, nil }
func (f fakeCatalog) CreateDocStore(rel string) error                { return nil }
func (f fakeCatalog) RemoveDocStore(rel string) error                { return nil }
func (f fakeCatalog) OpenLog(rel string) LogStore                    { return nil }
func (f fakeCatalog) OpenQueue(rel string) QueueStore                { return nil }
func (f fakeCatalog) Markers() []string                              { return []string{""} }

func newTestCollection(s RecordStore) *collectionNode {
	m := newMountState(fakeCatalog{store: s}, false, log.New(io.Discard, "", 0), 0)
	m.runNotify = func(func()) {} // no kernel here
	return &collectionNode{m: m, rel: "c"}
}
