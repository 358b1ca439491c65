package fusefs

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// fakeDropper records page drops; the test finishes them (then).
type fakeDropper struct {
	mu    sync.Mutex
	drops []fakeDrop
	added chan struct{}
}

type fakeDrop struct {
	from int64
	then func()
}

func (d *fakeDropper) dropPages(n *fs.Inode, from int64, then func()) {
	d.mu.Lock()
	d.drops = append(d.drops, fakeDrop{from, then})
	d.mu.Unlock()
	d.added <- struct{}{}
}

func (d *fakeDropper) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.drops)
}

func (d *fakeDropper) last() fakeDrop {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.drops[len(d.drops)-1]
}

// A growth is read at once but reported only once the kernel dropped the
// node's pages from the old end's page on, so that no page read while the
// view ended inside it outlives the old size (viewgrowth.go).
func TestViewGrowthReportedAfterPageDrop(t *testing.T) {
	old := strings.Repeat("0123456789abcde\n", 320) // 5120 bytes: ends inside page 1
	src, v := newFakeView(t, old)
	drops := &fakeDropper{added: make(chan struct{}, 8)}
	src.views.pages = drops
	h := openView(t, v)
	defer h.(*viewHandle).Release(context.Background())

	src.set(old + "appended line\n")
	size := make(chan uint64)
	getattr := func() {
		var out fuse.AttrOut
		v.Getattr(context.Background(), nil, &out)
		size <- out.Size
	}
	go getattr()
	<-drops.added
	drop := drops.last()
	if want := int64(len(old)) &^ (pageSize - 1); drop.from != want {
		t.Errorf("pages dropped from %d, want %d (the page holding the old end)", drop.from, want)
	}
	// Before the drop: reads serve the longer snapshot, the node reports
	// the old size.
	dest := make([]byte, 8192)
	res, errno := h.(*viewHandle).Read(context.Background(), dest, pageSize)
	if errno != 0 {
		t.Fatal(errno)
	}
	if got, _ := res.Bytes(dest); !strings.HasSuffix(string(got), "appended line\n") {
		t.Errorf("a read of the old last page before the drop does not serve the growth: %q", got[max(0, len(got)-20):])
	}
	var out fuse.AttrOut
	v.report(&out.Attr)
	if out.Size != uint64(len(old)) {
		t.Errorf("the node reports %d before the drop, want the old %d", out.Size, len(old))
	}
	select {
	case n := <-size:
		t.Fatalf("getattr answered %d before the drop", n)
	default:
	}
	drop.then()
	if n := <-size; n != uint64(len(old)+14) {
		t.Errorf("getattr after the drop: %d, want %d", n, len(old)+14)
	}

	// That reply met the drop, so the kernel discards its attributes: the
	// next getattr reports the published size without moving the node (a
	// drop now would discard it too), and the one after moves it again.
	src.set(old + "appended line\nand another\n")
	if n := sizeOf(t, v); n != uint64(len(old)+14) || drops.count() != 1 {
		t.Errorf("the getattr after a growth's own: size %d, %d drops; want %d, 1", n, drops.count(), len(old)+14)
	}
	go getattr()
	<-drops.added
	drops.last().then()
	if n := <-size; n != uint64(len(old)+26) {
		t.Errorf("the next getattr: size %d, want %d", n, len(old)+26)
	}
}
