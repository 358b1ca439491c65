package fusefs

import (
	"context"
	"sync"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// truncate(2) by path reads the stored record and commits it cut. A
// commit of another handle must not fall between that read and that put:
// it would be overwritten with the old content. The hook runs the other
// commit once the record is open for that read: at once when the read is not
// under the commit lock (the old code, which then lost that commit), else
// in the background, where it waits for the truncation to finish.
func TestTruncateByPathKeepsConcurrentCommit(t *testing.T) {
	original := `{"id":"` + idA + `"}   `
	later := `{"id":"` + idA + `","v":2}`
	s := newFakeStore(t)
	if err := s.PutRaw(idA, []byte(original)); err != nil {
		t.Fatal(err)
	}
	coll := newTestCollection(s)
	var other sync.WaitGroup
	var otherErrno syscall.Errno
	commitOther := func() {
		h := coll.openWriter(idA, s, true)
		h.Write(context.Background(), []byte(later), 0)
		otherErrno, _ = h.commitBuffer()
		h.Release(context.Background())
	}
	hooked := false
	s.onOpen = func(id string) {
		if hooked {
			return
		}
		hooked = true
		if coll.commitMu.TryLock() {
			coll.commitMu.Unlock()
			commitOther()
			return
		}
		other.Add(1)
		go func() { defer other.Done(); commitOther() }()
	}
	in := &fuse.SetAttrIn{SetAttrInCommon: fuse.SetAttrInCommon{Valid: fuse.FATTR_SIZE, Size: uint64(len(original) - 3)}}
	if errno := coll.setRecordAttr(context.Background(), nil, idA, nil, in, &fuse.AttrOut{}); errno != 0 {
		t.Fatalf("truncate by path: %v", errno)
	}
	other.Wait()
	if otherErrno != 0 {
		t.Fatalf("the other handle's commit: %v", otherErrno)
	}
	if !hooked {
		t.Fatal("truncate did not read the stored record")
	}
	if got := s.content(idA); got != later {
		t.Errorf("stored %q: the other handle's commit %q was overwritten", got, later)
	}
}
