package fusefs

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// fakeViews is a viewSource whose one view is content, in the snapshot key.
type fakeViews struct {
	content []byte
	key     string
}

func (f *fakeViews) stat(string) (viewStat, error) {
	return viewStat{size: int64(len(f.content)), mtime: time.Unix(1700000000, 0), key: f.key}, nil
}

func (f *fakeViews) open(string) (viewReader, error) {
	return fakeViewReader{bytes.NewReader(f.content), f.key}, nil
}

type fakeViewReader struct {
	*bytes.Reader
	key string
}

func (r fakeViewReader) Close() error        { return nil }
func (r fakeViewReader) snapshotKey() string { return r.key }

// A view node keeps the attributes of the snapshot it was looked up in,
// lets the kernel keep its pages while that snapshot is current, and
// reads past them (direct I/O) once the view changed.
func TestViewNodeIsOneSnapshot(t *testing.T) {
	ctx := context.Background()
	src := &fakeViews{content: []byte("{\"a\":1}\n"), key: "k1"}
	st, _ := src.stat("records.ndjson")
	v := &viewFile{src: src, name: "records.ndjson", st: st}

	h, flags, errno := v.Open(ctx, 0)
	if errno != 0 || flags != fuse.FOPEN_KEEP_CACHE|fuse.FOPEN_NOFLUSH {
		t.Fatalf("open of a current view: flags %#x, %v; want KEEP_CACHE|NOFLUSH", flags, errno)
	}
	h.(*viewHandle).Release(ctx)

	src.content, src.key = []byte("{\"a\":1}\n{\"b\":2}\n"), "k2"
	var out fuse.AttrOut
	if errno := v.Getattr(ctx, nil, &out); errno != 0 || out.Size != uint64(len("{\"a\":1}\n")) {
		t.Errorf("a node's size changed with the view: %d, %v", out.Size, errno)
	}
	h, flags, errno = v.Open(ctx, 0)
	if errno != 0 || flags != fuse.FOPEN_DIRECT_IO {
		t.Fatalf("open of a changed view: flags %#x, %v; want DIRECT_IO", flags, errno)
	}
	dest := make([]byte, 64)
	res, _ := h.(*viewHandle).Read(ctx, dest, 0)
	if got, _ := res.Bytes(dest); !bytes.Equal(got, src.content) {
		t.Errorf("read through a stale node: %q, want the latest %q", got, src.content)
	}
	if viewGen("k1") == viewGen("k2") {
		t.Error("two snapshots give one node generation")
	}
}
