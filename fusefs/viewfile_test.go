package fusefs

import (
	"bytes"
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// fakeViews is a viewSource with one view, content, whose snapshots it
// counts.
type fakeViews struct {
	content []byte
	version int
	held    int // references not released
	views   viewNodes
}

func (f *fakeViews) set(content string) {
	f.content = []byte(content)
	f.version++
}

func (f *fakeViews) latest(string) (viewSnap, error) {
	f.held++
	return &fakeSnap{src: f, content: f.content, key: fmt.Sprint("k", f.version)}, nil
}

func (f *fakeViews) nodes() *viewNodes { return &f.views }

type fakeSnap struct {
	src     *fakeViews
	content []byte
	key     string
}

func (s *fakeSnap) stat() viewStat {
	return viewStat{size: int64(len(s.content)), mtime: time.Unix(1700000000, 0), key: s.key}
}
func (s *fakeSnap) newReader() (viewReader, error) {
	return fakeReader{bytes.NewReader(s.content)}, nil
}
func (s *fakeSnap) extendsKnown(viewSnap) bool { return false }
func (s *fakeSnap) retain()                    { s.src.held++ }
func (s *fakeSnap) release()                   { s.src.held-- }

type fakeReader struct{ *bytes.Reader }

func (fakeReader) Close() error { return nil }

func newFakeView(t *testing.T, content string) (*fakeViews, *viewFile) {
	t.Helper()
	src := &fakeViews{}
	src.set(content)
	snap, _ := src.latest(recordsView)
	return src, newViewFile(src, recordsView, snap)
}

func sizeOf(t *testing.T, v *viewFile) uint64 {
	t.Helper()
	var out fuse.AttrOut
	if errno := v.Getattr(context.Background(), nil, &out); errno != 0 {
		t.Fatalf("getattr: %v", errno)
	}
	return out.Size
}

func readView(t *testing.T, h fs.FileHandle) string {
	t.Helper()
	var got []byte
	for {
		dest := make([]byte, 3)
		res, errno := h.(*viewHandle).Read(context.Background(), dest, int64(len(got)))
		if errno != 0 {
			t.Fatalf("read: %v", errno)
		}
		b, _ := res.Bytes(dest)
		if len(b) == 0 {
			return string(got)
		}
		got = append(got, b...)
	}
}

func openView(t *testing.T, v *viewFile) fs.FileHandle {
	t.Helper()
	h, flags, errno := v.Open(context.Background(), syscall.O_RDONLY)
	if errno != 0 || flags != fuse.FOPEN_KEEP_CACHE|fuse.FOPEN_NOFLUSH {
		t.Fatalf("open: flags %#x, %v; want KEEP_CACHE|NOFLUSH", flags, errno)
	}
	return h
}

// A node follows appends: its size grows, an open handle reads past its
// old end, and the kernel may keep the node's pages (KEEP_CACHE).
func TestViewNodeFollowsAppends(t *testing.T) {
	src, v := newFakeView(t, "a\n")
	h := openView(t, v)
	if got := readView(t, h); got != "a\n" {
		t.Fatalf("read %q", got)
	}
	src.set("a\nbb\n")
	if n := sizeOf(t, v); n != 5 {
		t.Errorf("size after an append: %d, want 5", n)
	}
	if got := readView(t, h); got != "a\nbb\n" {
		t.Errorf("an open handle after an append reads %q", got)
	}
	h.(*viewHandle).Release(context.Background())
	h = openView(t, v)
	h.(*viewHandle).Release(context.Background())
	v.releaseIfForgotten()
	if src.held != 0 {
		t.Errorf("%d snapshot references left after release and forget", src.held)
	}
}

// A change that is not an append freezes the node: its size and the
// content of its handles stay; an open through it is refused once with
// ESTALE (so the kernel looks the name up again) and the retry reads the
// node's own snapshot.
func TestViewNodeFreezesOnRewrite(t *testing.T) {
	src, v := newFakeView(t, "a\nbb\n")
	h := openView(t, v)
	src.set("bb\n")
	if n := sizeOf(t, v); n != 5 {
		t.Errorf("size after a rewrite: %d, want the node's 5", n)
	}
	if got := readView(t, h); got != "a\nbb\n" {
		t.Errorf("an open handle after a rewrite reads %q", got)
	}
	src.set("bb\ncc\n") // an append to the new view: the node stays frozen
	if n := sizeOf(t, v); n != 5 {
		t.Errorf("a frozen node followed: size %d", n)
	}
	if _, _, errno := v.Open(context.Background(), syscall.O_RDONLY); errno != syscall.ESTALE {
		t.Fatalf("open of a frozen node: %v, want ESTALE", errno)
	}
	h2 := openView(t, v)
	if got := readView(t, h2); got != "a\nbb\n" {
		t.Errorf("the retried open reads %q, want the node's snapshot", got)
	}
	h.(*viewHandle).Release(context.Background())
	h2.(*viewHandle).Release(context.Background())
	v.releaseIfForgotten()
	if src.held != 0 {
		t.Errorf("%d snapshot references left", src.held)
	}
}

// An open after an append the kernel has not been told of (no getattr
// since) is refused once: otherwise the kernel would cap reads at the old
// size while the handle could serve more.
func TestViewOpenAfterUnreportedAppend(t *testing.T) {
	src, v := newFakeView(t, "a\n")
	src.set("a\nb\n")
	if _, _, errno := v.Open(context.Background(), syscall.O_RDONLY); errno != syscall.ESTALE {
		t.Fatalf("open after an unreported append: %v, want ESTALE", errno)
	}
	if n := sizeOf(t, v); n != 4 { // the retry's lookup reports the new size
		t.Fatalf("size %d", n)
	}
	h := openView(t, v)
	if got := readView(t, h); got != "a\nb\n" {
		t.Errorf("read %q", got)
	}
	h.(*viewHandle).Release(context.Background())
}

// A frozen node releases its snapshot once it has no open file and the
// grace has passed; it goes on reporting its attributes, and an open of it
// fails with ESTALE.
func TestFrozenViewReleasesSnapshot(t *testing.T) {
	src, v := newFakeView(t, "a\nbb\n")
	h := openView(t, v)
	src.set("bb\n")
	sizeOf(t, v) // freezes it
	v.mu.Lock()
	v.frozenAt = v.frozenAt.Add(-releaseGrace)
	v.mu.Unlock()
	v.releaseIfIdle()
	if got := readView(t, h); got != "a\nbb\n" || src.held != 2 {
		t.Fatalf("with a file open: read %q, %d references (want the node's and the file's)", got, src.held)
	}
	h.(*viewHandle).Release(context.Background())
	if src.held != 0 {
		t.Errorf("%d references after the last file of a frozen node closed", src.held)
	}
	if n := sizeOf(t, v); n != 5 {
		t.Errorf("a released node reports size %d, want its 5", n)
	}
	for range 2 { // not even a retry
		if _, _, errno := v.Open(context.Background(), syscall.O_RDONLY); errno != syscall.ESTALE {
			t.Fatalf("open of a released node: %v, want ESTALE", errno)
		}
	}
}

func TestStaleRetry(t *testing.T) {
	var n viewNodes
	now := time.Unix(1700000000, 0)
	if n.retryOf("v", 7, now) {
		t.Error("a first open counts as a retry")
	}
	n.noteRefusal("v", 7, now)
	if n.retryOf("v", 8, now) || n.retryOf("w", 7, now) {
		t.Error("an open by another thread or of another view counts as the retry")
	}
	if !n.retryOf("v", 7, now.Add(staleRetryWithin/2)) || n.retryOf("v", 7, now) {
		t.Error("the retry is not known, or is known twice")
	}
	n.noteRefusal("v", 7, now)
	if n.retryOf("v", 7, now.Add(2*staleRetryWithin)) || n.retryOf("v", 7, now) {
		t.Error("a much later open counts as a retry, or did not end the pending one")
	}
	n.noteRefusal("v", 7, now)
	n.noteRefusal("w", 7, now.Add(2*staleRetryWithin))
	if len(n.stale) != 1 {
		t.Errorf("old refusals kept: %v", n.stale)
	}
}
