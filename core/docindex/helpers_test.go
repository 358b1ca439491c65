package docindex

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// miniStore is the smallest DocStore a test needs: canonical record files
// under C/data/<bucket>/ and index maintenance in PHP's order (7.8).
type miniStore struct {
	t   testing.TB
	dir string
	m   *Manager
}

func newMiniStore(t testing.TB, dir string) *miniStore {
	m, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &miniStore{t: t, dir: dir, m: m}
}

func (s *miniStore) recordPath(id string) string {
	return s.dir + "/data/" + id[24:26] + "/" + id + ".jsonc"
}

func (s *miniStore) read(id string) *phpjson.Array {
	content, err := os.ReadFile(s.recordPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		s.t.Fatal(err)
	}
	obj, err := phpjson.DecodeJSONCObject(content)
	if err != nil {
		s.t.Fatalf("record %s: %v", id, err)
	}
	d, _ := obj.Lookup("data")
	if a, ok := d.(*phpjson.Array); ok {
		return a
	}
	return phpjson.NewArray(0)
}

// put is PHP put(data, id) with an explicit id.
func (s *miniStore) put(id string, data *phpjson.Array) error {
	if err := s.m.Reload(); err != nil {
		return err
	}
	active := s.m.Active()
	var old *phpjson.Array
	if active {
		old = s.read(id)
		if err := s.m.CheckUnique(id, data); err != nil {
			return err
		}
	}
	body, err := phpjson.Encode(data)
	if err != nil {
		return err
	}
	content := append([]byte(`{"id":"`+id+`","data":`), body...)
	content = append(content, '}', '\n')
	if err := os.MkdirAll(filepath.Dir(s.recordPath(id)), 0o777); err != nil {
		return err
	}
	if err := os.WriteFile(s.recordPath(id), content, 0o666); err != nil {
		return err
	}
	if active {
		return s.m.UpdateRecord(id, old, data)
	}
	return nil
}

func (s *miniStore) delete(id string) error {
	if err := s.m.Reload(); err != nil {
		return err
	}
	old := s.read(id)
	if old == nil {
		return nil
	}
	if err := os.Remove(s.recordPath(id)); err != nil {
		return err
	}
	if s.m.Active() {
		return s.m.RemoveRecord(id, old)
	}
	return nil
}

// source yields every record file in id order.
func (s *miniStore) source() RecordSource {
	return func(yield func(id string, data *phpjson.Array) error) error {
		paths, _ := filepath.Glob(s.dir + "/data/*/*.jsonc")
		sort.Slice(paths, func(i, j int) bool { return filepath.Base(paths[i]) < filepath.Base(paths[j]) })
		for _, p := range paths {
			id := strings.TrimSuffix(filepath.Base(p), ".jsonc")
			if err := yield(id, s.read(id)); err != nil {
				return err
			}
		}
		return nil
	}
}

// treeFiles returns every file below root (relative path -> content) and
// every directory (relative path with a trailing slash -> nil).
func treeFiles(t testing.TB, root string) map[string][]byte {
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			out[rel+"/"] = nil
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = b
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// compareTrees reports every difference between two trees.
func compareTrees(t testing.TB, got, want map[string][]byte) {
	t.Helper()
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		g, gok := got[k]
		w, wok := want[k]
		switch {
		case !gok:
			t.Errorf("missing %s", k)
		case !wok:
			t.Errorf("unexpected %s:\n%s", k, g)
		case !bytes.Equal(g, w):
			t.Errorf("%s differs:\n got: %q\nwant: %q", k, g, w)
		}
	}
}

// readJSONL decodes every line of a conformance JSONL file.
func readJSONL(t testing.TB, path string) []phpjson.Value {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []phpjson.Value
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		v, err := phpjson.DecodeDepth(sc.Bytes(), 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}
