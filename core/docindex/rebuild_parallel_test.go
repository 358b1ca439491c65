package docindex

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

func TestSyncWriterWritesAndSyncsDirs(t *testing.T) {
	dir := t.TempDir()
	w := newSyncWriter(4)
	for i, name := range []string{"a.jsonc", "b.jsonc", "c.jsonc", "d.jsonc"} {
		content := []byte(strings.Repeat("x", i+1))
		w.write(dir+"/"+name, func() ([]byte, error) { return content, nil })
	}
	must(t, w.syncDirs())
	got := treeFiles(t, dir)
	want := map[string][]byte{"a.jsonc": []byte("x"), "b.jsonc": []byte("xx"), "c.jsonc": []byte("xxx"), "d.jsonc": []byte("xxxx")}
	compareTrees(t, got, want) // no temp survives
	if !w.dirs[dir] || len(w.dirs) != 1 {
		t.Errorf("dirs to sync = %v", w.dirs)
	}
}

func TestSyncWriterFailures(t *testing.T) {
	dir := t.TempDir()
	must(t, os.Mkdir(dir+"/taken", 0o777))
	must(t, os.WriteFile(dir+"/taken/x", nil, 0o666)) // rename onto a non-empty dir fails
	produceErr := errors.New("encode failed")
	tests := []struct {
		name    string
		path    string
		produce func() ([]byte, error)
		wantMsg string
	}{
		{"missing dir", dir + "/missing/f.jsonc", nil,
			"Could not open temporary storage file for writing: " + dir + "/missing/.f.jsonc."},
		{"rename onto dir", dir + "/taken", nil,
			"Could not atomically replace storage file: " + dir + "/taken"},
		{"produce error", dir + "/p.jsonc", func() ([]byte, error) { return nil, produceErr }, "encode failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newSyncWriter(2)
			produce := tc.produce
			if produce == nil {
				produce = func() ([]byte, error) { return []byte("{}\n"), nil }
			}
			w.write(tc.path, produce)
			err := w.wait()
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantMsg) {
				t.Fatalf("err = %v, want prefix %q", err, tc.wantMsg)
			}
			// Later submissions are skipped; the error stays the first.
			w.write(dir+"/later.jsonc", func() ([]byte, error) { return []byte("x"), nil })
			if err2 := w.wait(); err2 != err {
				t.Errorf("second wait = %v", err2)
			}
			if _, err := os.Stat(dir + "/later.jsonc"); err == nil {
				t.Error("write after a failure was not skipped")
			}
		})
	}
	temps, _ := filepath.Glob(dir + "/*/.*.tmp")
	more, _ := filepath.Glob(dir + "/.*.tmp")
	if len(temps)+len(more) > 0 {
		t.Errorf("temps left: %v %v", temps, more)
	}
}

func TestSyncWriterEarliestErrorWins(t *testing.T) {
	dir := t.TempDir()
	w := newSyncWriter(8)
	block := make(chan struct{})
	w.write(dir+"/first", func() ([]byte, error) { <-block; return nil, errors.New("first") })
	w.write(dir+"/second", func() ([]byte, error) { return nil, errors.New("second") })
	for {
		w.mu.Lock()
		failed := w.err != nil
		w.mu.Unlock()
		if failed {
			break
		}
		runtime.Gosched()
	}
	close(block)
	if err := w.wait(); err == nil || err.Error() != "first" {
		t.Fatalf("err = %v, want the earliest submission's", err)
	}
}

// The collector's hand-built line must be encodeRangeLine's.
func TestRangeCollectorLineIsCanonical(t *testing.T) {
	values := []phpjson.Value{
		nil, true, false, int64(0), int64(-7), int64(math.MaxInt64), int64(math.MinInt64),
		0.5, math.Copysign(0, -1), -1e300, "", "page", "é\"\\\n</", strings.Repeat("z", 200),
	}
	c := newRangeCollector(paths{collection: t.TempDir()}, newSyncWriter(1), func(string) error { return nil })
	for _, v := range values {
		must(t, c.add("f", idA, v))
	}
	f := c.fields["f"]
	for i, v := range values {
		line, err := encodeRangeLine(RangeKey(v), v, []string{idA}, []string{})
		must(t, err)
		want := RangeKey(v) + "\t" + ValueKey(v) + "\t" + string(line)
		if got := string(f.held.lines[i]); got != want {
			t.Errorf("%#v:\n got %q\nwant %q", v, got, want)
		}
	}
	size := f.held.size
	if err := c.add("f", "bad\xff", int64(1)); err == nil {
		t.Error("invalid UTF-8 id accepted")
	}
	if len(f.held.lines) != len(values) || f.held.size != size {
		t.Error("a failed add was held")
	}
	// Long lines, and many lines, keep their own bytes.
	long := strings.Repeat("y", 256<<10)
	must(t, c.add("f", idB, long))
	for i := 0; i < 3000; i++ {
		must(t, c.add("f", idB, int64(i)))
	}
	if got := f.held.lines[len(values)]; !strings.Contains(string(got), `"value":"`+long+`"`) {
		t.Error("long line damaged")
	}
	for i, v := range values {
		line, _ := encodeRangeLine(RangeKey(v), v, []string{idA}, []string{})
		if !strings.HasSuffix(string(f.held.lines[i]), string(line)) {
			t.Errorf("line %d damaged by later adds", i)
		}
	}
}

func TestRebuildReportsWriteErrors(t *testing.T) {
	dir := t.TempDir() + "/c"
	m, _ := Open(dir, nil)
	long := strings.Repeat("f", 130) // FK of 260 bytes: longer than a file name may be
	must(t, m.Define([]Definition{{Field: "kind"}, {Field: long}, {Field: "n", Range: true}}))
	must(t, m.Sync(false, nil))
	// A string that cannot be encoded fails its entry file.
	bad := sliceSource([]benchRecord{{idA, obj("kind", "bad\xff")}})
	if _, _, err := m.Rebuild(bad); !errors.Is(err, phpjson.ErrUTF8) {
		t.Errorf("bad value: err = %v", err)
	}
	// A directory that cannot be created fails with PHP's message.
	src := sliceSource([]benchRecord{{idA, obj("kind", "page", long, int64(1), "n", int64(1))}})
	var fe *fsutil.Error
	if _, _, err := m.Rebuild(src); !errors.As(err, &fe) ||
		!strings.HasPrefix(err.Error(), "Could not create storage directory: "+dir) {
		t.Errorf("long name: err = %v", err)
	}
	// The source's error is returned once entries/ is gone (PHP pitfall).
	boom := errors.New("corrupt record")
	failing := func(yield func(string, *phpjson.Array) error) error { return boom }
	if _, _, err := m.Rebuild(failing); err != boom {
		t.Errorf("source error: err = %v", err)
	}
	if got := treeFiles(t, m.paths.entries()); len(got) != 0 {
		t.Errorf("entries/ after a failed source: %v", got)
	}
}

// UpdateRecord re-adds to files its removal just wrote or unlinked without
// reading them back; the result must be what re-reading gives.
func TestUpdateRecordReusesRemovalResult(t *testing.T) {
	run := func(t *testing.T, update func(s *miniStore)) map[string][]byte {
		dir := t.TempDir() + "/c"
		s := newMiniStore(t, dir)
		must(t, s.m.Define([]Definition{{Field: "kind"}, {Field: "tag"}, {Field: "n", Range: true}}))
		must(t, s.m.Sync(true, s.source()))
		must(t, s.put(idA, obj("kind", "page", "tag", "x", "n", int64(1))))
		must(t, s.put(idB, obj("kind", "page", "tag", "y", "n", int64(2))))
		update(s)
		return treeFiles(t, dir+"/.storh/indexes/entries")
	}
	// tag x and the compound file hold only idA: the removal unlinks them;
	// kind page holds both ids: the removal rewrites it.
	same := obj("kind", "page", "tag", "x", "n", int64(1))
	got := run(t, func(s *miniStore) { must(t, s.put(idA, same)) })
	// Reference: the same file operations in two calls, so the re-addition
	// reads every file back from disk.
	want := run(t, func(s *miniStore) {
		must(t, s.m.RemoveRecord(idA, s.read(idA)))
		must(t, s.m.UpdateRecord(idA, nil, same))
	})
	compareTrees(t, got, want)
}
