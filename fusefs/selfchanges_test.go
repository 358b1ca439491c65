package fusefs

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSelfChangesRecogniseOnlyTheMountsOwnFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonc")
	write := func(content string) { // storh's way: a new file renamed over
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	var s selfChanges
	statNow := func() (os.FileInfo, error) { return os.Lstat(path) }
	noteNow := func() {
		fi, err := statNow()
		s.note("c", "r", fi, err)
	}

	write(`{"v":1}`)
	noteNow()
	if fi, err := statNow(); !s.matches("c", "r", fi, err) {
		t.Fatal("the file the mount left is not recognised")
	}
	if fi, err := statNow(); s.matches("other", "r", fi, err) || s.matches("c", "x", fi, err) {
		t.Error("recognised under another collection or id")
	}
	write(`{"v":2}`) // an outside writer, same size
	if fi, err := statNow(); s.matches("c", "r", fi, err) {
		t.Error("an outside rewrite was taken for the mount's own change")
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	noteNow()
	if fi, err := statNow(); !s.matches("c", "r", fi, err) {
		t.Error("the mount's own delete is not recognised")
	}
	write(`{"v":3}`) // recreated outside
	if fi, err := statNow(); s.matches("c", "r", fi, err) {
		t.Error("an outside re-creation was taken for the mount's delete")
	}

	noteNow()
	s.mu.Lock()
	n := s.records[recordKey{"c", "r"}]
	n.at = time.Now().Add(-2 * selfChangeWindow)
	s.records[recordKey{"c", "r"}] = n
	s.mu.Unlock()
	if fi, err := statNow(); s.matches("c", "r", fi, err) {
		t.Error("a change older than the window was recognised")
	}
	if s.matches("c", "r", nil, os.ErrPermission) {
		t.Error("a failed stat was recognised")
	}
}
