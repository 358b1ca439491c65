package docstore

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/fsutil"
)

// A failed fsync of the bucket directory after the rename: with
// DirSyncErrors (the mount) the put reports it, after indexing the stored
// record; without it the failure is ignored, as PHP's put does.
func TestPutRawDirSyncFailure(t *testing.T) {
	for _, strict := range []bool{false, true} {
		root := t.TempDir()
		s, err := Open(root, "pages", Options{DirSyncErrors: strict})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if err := s.SyncIndexes([]docindex.Definition{{Field: "kind"}}, true); err != nil {
			t.Fatal(err)
		}
		s.writer.SyncDir = func(int) error { return unix.EIO }
		err = s.PutRaw(id1, []byte(`{"id":"`+id1+`","data":{"kind":"a"}}`))
		switch {
		case strict && !(errors.Is(err, fsutil.ErrDirSync) && errors.Is(err, unix.EIO)):
			t.Errorf("DirSyncErrors: PutRaw = %v, want ErrDirSync wrapping EIO", err)
		case !strict && err != nil:
			t.Errorf("PHP parity: PutRaw = %v, want the failure ignored", err)
		}
		if rec, err := s.Get(id1); err != nil || rec == nil {
			t.Errorf("strict=%v: record after the failed directory fsync: %v, %v", strict, rec, err)
		}
		if v, err := s.Verify(); err != nil || !strings.HasPrefix(mustJSON(t, v), `{"ok":true,"errors":[]`) {
			t.Errorf("strict=%v: verify after the failed directory fsync: %v (%v)", strict, mustJSON(t, v), err)
		}
	}
}
