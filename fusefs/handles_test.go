package fusefs

import (
	"context"
	"syscall"
	"testing"
)

const (
	idA = "0190a1b2-c3d4-7e5f-8a6b-2d5dba6274da"
	idB = "0190a1b2-c3d4-7e5f-8a6b-2d5dba6274db"
)

func TestWriteHandleCommit(t *testing.T) {
	ctx := context.Background()
	valid := `{"id":"` + idA + `","data":{"x":1}}`
	cases := []struct {
		name   string
		ops    func(h *writeHandle) syscall.Errno
		errno  syscall.Errno
		stored string
	}{
		{"untouched handle commits nothing", func(h *writeHandle) syscall.Errno { return 0 }, 0, `{"id":"` + idA + `"}`},
		{"truncate and write", func(h *writeHandle) syscall.Errno {
			h.truncate(0)
			h.Write(ctx, []byte(valid), 0)
			return 0
		}, 0, valid},
		{"truncate only is rejected, record intact", func(h *writeHandle) syscall.Errno {
			return h.truncate(0)
		}, syscall.EINVAL, `{"id":"` + idA + `"}`},
		{"wrong id is rejected, record intact", func(h *writeHandle) syscall.Errno {
			h.truncate(0)
			h.Write(ctx, []byte(`{"id":"`+idB+`"}`), 0)
			return 0
		}, syscall.EINVAL, `{"id":"` + idA + `"}`},
		{"write into the loaded content", func(h *writeHandle) syscall.Errno {
			// {"id":"...} -> {"id":"..."   } by overwriting the tail.
			_, errno := h.Write(ctx, []byte(`"}  `), int64(len(`{"id":"`+idA)))
			return errno
		}, 0, `{"id":"` + idA + `"}  `},
		{"write past the end zero-fills", func(h *writeHandle) syscall.Errno {
			_, errno := h.Write(ctx, []byte(" "), int64(len(`{"id":"`+idA+`"}`))+2)
			return errno
		}, 0, `{"id":"` + idA + `"}` + "\x00\x00 "},
		{"oversized write refused", func(h *writeHandle) syscall.Errno {
			_, errno := h.Write(ctx, []byte("x"), maxFileSize)
			if errno != syscall.EFBIG {
				t.Errorf("write at maxFileSize: %v, want EFBIG", errno)
			}
			return 0
		}, 0, `{"id":"` + idA + `"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newFakeStore(t, idA, idB)
			coll := newTestCollection(s)
			h := coll.openWriter(idA, s, false)
			if errno := c.ops(h); errno != 0 {
				t.Fatalf("ops: %v", errno)
			}
			errno, _ := h.commitBuffer()
			if errno != c.errno {
				t.Errorf("commit = %v, want %v", errno, c.errno)
			}
			if got := s.content(idA); got != c.stored {
				t.Errorf("stored %q, want %q", got, c.stored)
			}
			// A second flush (dup'd descriptor) does not commit again after success.
			puts := s.puts
			if errno, _ := h.commitBuffer(); c.errno == 0 && (errno != 0 || s.puts != puts) {
				t.Errorf("second flush: %v, puts %d -> %d", errno, puts, s.puts)
			}
			h.Release(context.Background())
			if len(coll.openWriters(idA)) != 0 {
				t.Errorf("handle still registered after release")
			}
		})
	}
}

func TestRejectedBufferIsNotShown(t *testing.T) {
	s := newFakeStore(t, idA)
	coll := newTestCollection(s)
	h := coll.openWriter(idA, s, false)
	h.truncate(0)
	if size, ok := coll.pendingSize(idA); !ok || size != 0 {
		t.Fatalf("dirty size = %d, %v; want 0, true", size, ok)
	}
	if errno, _ := h.commitBuffer(); errno != syscall.EINVAL {
		t.Fatalf("commit of empty content = %v, want EINVAL", errno)
	}
	if _, ok := coll.pendingSize(idA); ok {
		t.Errorf("a rejected buffer is still reported as the record's size")
	}
	h.Write(context.Background(), []byte(`{"id":"`+idA+`","v":2}`), 0)
	if _, ok := coll.pendingSize(idA); !ok {
		t.Errorf("a new write after a rejection is not pending")
	}
}

func TestResizeAndSlice(t *testing.T) {
	buf := []byte("hello")
	if got := string(resize(buf, 3)); got != "hel" {
		t.Errorf("resize cut = %q", got)
	}
	if got := resize([]byte("ab"), 4); string(got) != "ab\x00\x00" {
		t.Errorf("resize grow = %q", got)
	}
	// Growing within capacity must clear stale bytes.
	b := []byte("abcdef")[:2]
	if got := resize(b, 4); string(got) != "ab\x00\x00" {
		t.Errorf("resize within cap = %q", got)
	}
	dest := make([]byte, 10)
	if got := sliceAt([]byte("hello"), dest, 3); string(got) != "lo" {
		t.Errorf("sliceAt = %q", got)
	}
	if got := sliceAt([]byte("hello"), dest, 9); len(got) != 0 {
		t.Errorf("sliceAt past end = %q", got)
	}
	if errno := (&memBuf{budget: newMemBudget(0, "", nil)}).writeAt([]byte("x"), -1); errno != syscall.EFBIG {
		t.Errorf("writeAt negative offset = %v", errno)
	}
}
