package seglog

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/internal/treetest"
)

// buildLog writes a log of 3 segments (max 300 bytes): puts 1..8, a delete
// of 3 and an overwrite of 2. It returns the collection directory.
func buildLog(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	l := openTest(t, root, 300)
	for i := 1; i <= 8; i++ {
		if _, err := l.Put(dataN(i), testID(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Delete(testID(3)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(dataN(22), testID(2)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	return root + "/events"
}

func segFiles(t *testing.T, dir string) (sealed []string, active string) {
	t.Helper()
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.sealed {
		sealed = append(sealed, e.file)
	}
	if len(sealed) < 2 {
		t.Fatalf("want at least 2 sealed segments, got %v", sealed)
	}
	return sealed, m.activeFile()
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// flipByte changes the byte at off of path (a checksum or payload bit flip).
func flipByte(t *testing.T, path string, off int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x01
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
}

// phpVerifyReference is what a PHP instance opened before the damage
// reports: the directory is copied, opened with Open (which truncates the
// copy), the truncated bytes are put back, then Stats and Verify run on
// the instance. This is the reference the read-only path must equal.
func phpVerifyReference(t *testing.T, dir string) (Stats, Health, error) {
	t.Helper()
	root := t.TempDir()
	cp := root + "/events"
	if err := copyTree(dir, cp); err != nil {
		t.Fatal(err)
	}
	l, err := Open(root, "events", Options{})
	if err != nil {
		return Stats{}, Health{}, err
	}
	defer l.Close()
	entries, _ := os.ReadDir(dir + "/segments")
	for _, e := range entries {
		restoreBytes(t, dir+"/segments/"+e.Name(), cp+"/segments/"+e.Name())
	}
	st, err := l.Stats()
	if err != nil {
		t.Fatal(err)
	}
	h, err := l.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if h.Errors == nil {
		h.Errors = []string{}
	}
	return st, h, nil
}

func copyTree(src, dst string) error {
	if _, err := os.Stat(src); os.IsNotExist(err) {
		return nil
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o777)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o666)
	})
}

// restoreBytes appends to cp the bytes of orig beyond cp's size.
func restoreBytes(t *testing.T, orig, cp string) {
	t.Helper()
	fi, err := os.Stat(cp)
	if err != nil {
		return
	}
	in, err := os.Open(orig)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := in.Seek(fi.Size(), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(cp, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
}

func TestReadOnlyStatsVerifyEqualPHP(t *testing.T) {
	canonicalBadJSON := string(AppendLine(nil, []byte(`{"op":"put","id":"`+testID(50)+`","data":{"a":}}`)))
	badID := string(AppendLine(nil, []byte(`{"op":"put","id":"not-a-uuid-not-a-uuid-not-a-uuid-xxxx","data":{}}`)))
	cases := []struct {
		name    string
		damage  func(t *testing.T, dir string)
		wantOK  bool
		wantErr []string // exact errors when set
	}{
		{"clean", func(*testing.T, string) {}, true, []string{}},
		{"torn active tail", func(t *testing.T, dir string) {
			_, a := segFiles(t, dir)
			appendTo(t, dir+"/segments/"+a, "57\t0123abcd\t{\"op\":\"put\",\"id\":\"01")
		}, false, []string{"Corrupt segmented log line.", "Corrupt segmented log line."}},
		{"malformed tail", func(t *testing.T, dir string) {
			_, a := segFiles(t, dir)
			appendTo(t, dir+"/segments/"+a, "garbage")
		}, false, []string{"Malformed segmented log line.", "Malformed segmented log line."}},
		{"blank line then valid lines", func(t *testing.T, dir string) {
			_, a := segFiles(t, dir)
			appendTo(t, dir+"/segments/"+a, "\n"+string(AppendLine(nil, []byte(`{"op":"put","id":"`+testID(60)+`","data":{}}`))))
		}, false, nil},
		{"bit flip in first sealed segment", func(t *testing.T, dir string) {
			s, _ := segFiles(t, dir)
			flipByte(t, dir+"/segments/"+s[0], 5)
		}, false, nil},
		{"bit flip in second sealed payload", func(t *testing.T, dir string) {
			s, _ := segFiles(t, dir)
			flipByte(t, dir+"/segments/"+s[1], 40)
		}, false, nil},
		{"checksum-valid broken JSON", func(t *testing.T, dir string) {
			_, a := segFiles(t, dir)
			appendTo(t, dir+"/segments/"+a, canonicalBadJSON)
		}, false, nil},
		{"checksum-valid invalid id", func(t *testing.T, dir string) {
			_, a := segFiles(t, dir)
			appendTo(t, dir+"/segments/"+a, badID)
		}, false, nil},
		{"missing sealed segment", func(t *testing.T, dir string) {
			s, _ := segFiles(t, dir)
			os.Remove(dir + "/segments/" + s[1])
		}, false, nil},
		{"missing active segment", func(t *testing.T, dir string) {
			_, a := segFiles(t, dir)
			os.Remove(dir + "/segments/" + a)
		}, true, nil},
		{"missing manifest", func(t *testing.T, dir string) {
			os.Remove(dir + "/" + manifestName)
		}, true, nil},
		{"missing directory", func(t *testing.T, dir string) {
			os.RemoveAll(dir)
		}, true, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := buildLog(t)
			tc.damage(t, dir)
			before := treetest.Snapshot(t, filepath.Dir(dir))

			snap, err := NewReader(dir).SnapshotAsOpened()
			if err != nil {
				t.Fatal(err)
			}
			st := snap.Stats()
			h := snap.Verify()
			if after := treetest.Snapshot(t, filepath.Dir(dir)); !reflect.DeepEqual(before, after) {
				t.Fatal("read-only stats/verify changed the directory")
			}

			wantSt, wantH, err := phpVerifyReference(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			if st != wantSt {
				t.Errorf("Stats = %+v, want %+v", st, wantSt)
			}
			if !reflect.DeepEqual(h, wantH) {
				t.Errorf("Verify = %+v\nwant     %+v", h, wantH)
			}
			t.Logf("stats %+v verify %+v", st, h)
			if h.OK != tc.wantOK {
				t.Errorf("ok = %v, want %v (%v)", h.OK, tc.wantOK, h.Errors)
			}
			if tc.wantErr != nil && !reflect.DeepEqual(h.Errors, tc.wantErr) {
				t.Errorf("errors = %q, want %q", h.Errors, tc.wantErr)
			}
		})
	}
}

func TestReadOnlyTornTailCountsFileBytes(t *testing.T) {
	dir := buildLog(t)
	_, a := segFiles(t, dir)
	tail := "57\t0123abcd\t{\"op\":\"put\""
	clean, err := NewReader(dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	cs := clean.Stats()
	appendTo(t, dir+"/segments/"+a, tail)
	torn, err := NewReader(dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	ts := torn.Stats()
	if ts.Bytes != cs.Bytes+int64(len(tail)) || ts.Records != cs.Records || ts.Deleted != cs.Deleted || ts.Segments != cs.Segments {
		t.Errorf("torn stats %+v, clean %+v", ts, cs)
	}
	if cs.Records != 7 || cs.Deleted != 1 {
		t.Errorf("clean stats %+v, want 7 live, 1 deleted", cs)
	}
	// The verify result of a snapshot taken before the tear sees it too:
	// it reads the files as they are now.
	if h := clean.Verify(); h.OK || len(h.Errors) != 2 {
		t.Errorf("verify of an earlier snapshot: %+v", h)
	}
}

func TestReadOnlyDriftAfterAppend(t *testing.T) {
	dir := buildLog(t)
	snap, err := NewReader(dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	l, err := Open(filepath.Dir(dir), "events", Options{MaxSegmentBytes: 300})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(dataN(70), testID(70)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	h := snap.Verify()
	if h.OK || len(h.Errors) != 1 || h.Errors[0] != ErrStateDrift.Error() {
		t.Errorf("verify of a stale snapshot: %+v", h)
	}
	if got := h.Array(); !strings.Contains(string(mustEncode(t, got)), `"ok":false`) {
		t.Errorf("Array: %s", mustEncode(t, got))
	}
}

func TestSnapshotAsOpenedErrors(t *testing.T) {
	dir := t.TempDir() + "/events"
	os.MkdirAll(dir, 0o777)
	os.WriteFile(dir+"/"+manifestName, []byte("{broken"), 0o666)
	if _, err := NewReader(dir).SnapshotAsOpened(); err == nil {
		t.Fatal("a broken manifest opened")
	}
	if _, err := NewReader(dir).Snapshot(); err == nil {
		t.Fatal("a broken manifest opened")
	}
	if _, err := NewReader(t.TempDir() + "/none").Snapshot(); !isNotExist(err) {
		t.Fatalf("Snapshot of a missing log: %v (must stay ErrNotExist)", err)
	}
}

func mustEncode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := phpjson.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
