package fusefs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeExport writes lines in chunks of about 1 MiB, as ExportView does,
// and fails with err after failAt bytes when err is set.
type fakeExport struct {
	content []byte
	failAt  int
	err     error
	done    chan error // receives each run's end, when not nil
	runs    atomic.Int32
}

func (e *fakeExport) ExportView(out io.Writer) (int, error) {
	e.runs.Add(1)
	end := len(e.content)
	if e.err != nil {
		end = e.failAt
	}
	var err error
	for off := 0; off < end && err == nil; off += 1 << 20 {
		_, err = out.Write(e.content[off:min(off+1<<20, end)])
	}
	if err == nil {
		err = e.err
	}
	if e.done != nil {
		e.done <- err
	}
	return 0, err
}

func exportContent(lines int) []byte {
	pad := bytes.Repeat([]byte{'x'}, 2000)
	var b []byte
	for i := range lines {
		b = fmt.Appendf(b, `{"id":"%08d","data":{"pad":"`, i)
		b = append(append(b, pad[:i*7%2000]...), "\"}}\n"...)
	}
	return b
}

func readAll(t *testing.T, p *exportPool, off int64, chunk int) []byte {
	t.Helper()
	var out []byte
	buf := make([]byte, chunk)
	for {
		n, err := p.read(buf, off)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return out
		}
		out = append(out, buf[:n]...)
		off += int64(n)
	}
}

func TestExportPoolSequential(t *testing.T) {
	content := exportContent(12000) // about 12 MiB: the ring wraps
	p := &exportPool{exp: &fakeExport{content: content}}
	defer p.close()
	if got := readAll(t, p, 0, 128<<10); !bytes.Equal(got, content) {
		t.Fatalf("read %d bytes, want the %d of the export", len(got), len(content))
	}
	if n := len(p.streams); n != 1 {
		t.Fatalf("%d streams for one sequential reader, want 1", n)
	}
}

// The kernel's read-ahead sends READs slightly out of order; a read far
// behind starts a new stream; a read far ahead too.
func TestExportPoolOffsets(t *testing.T) {
	content := exportContent(12000)
	p := &exportPool{exp: &fakeExport{content: content}}
	defer p.close()
	buf := make([]byte, 4096)
	for _, off := range []int64{131072, 0, 262144, 135000, 9 << 20, 100, int64(len(content)) - 10, 5 << 20} {
		n, err := p.read(buf, off)
		if err != nil {
			t.Fatal(err)
		}
		want := content[off:min(off+4096, int64(len(content)))]
		if !bytes.Equal(buf[:n], want) {
			t.Fatalf("read at %d: got %d bytes, not the export's", off, n)
		}
	}
	if n, err := p.read(buf, int64(len(content))+5); n != 0 || err != nil {
		t.Fatalf("read past the end = %d, %v", n, err)
	}
	if len(p.streams) > maxStreams {
		t.Fatalf("%d streams, more than %d", len(p.streams), maxStreams)
	}
}

func TestExportPoolConcurrentReaders(t *testing.T) {
	content := exportContent(6000)
	p := &exportPool{exp: &fakeExport{content: content}}
	defer p.close()
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := readAll(t, p, 0, 64<<10); !bytes.Equal(got, content) {
				t.Errorf("a concurrent reader got %d bytes, want %d", len(got), len(content))
			}
		}()
	}
	wg.Wait()
}

func TestExportPoolFailure(t *testing.T) {
	boom := errors.New("unreadable record")
	content := exportContent(4000)
	p := &exportPool{exp: &fakeExport{content: content, failAt: 2 << 20, err: boom}}
	defer p.close()
	buf := make([]byte, 128<<10)
	var off int64
	for {
		n, err := p.read(buf, off)
		if err != nil {
			if !errors.Is(err, boom) || off != 2<<20 {
				t.Fatalf("at %d: %v, want the export's error at %d", off, err, 2<<20)
			}
			return
		}
		if n == 0 {
			t.Fatalf("clean end at %d, want the export's error", off)
		}
		off += int64(n)
	}
}

// Closing the pool ends the export still running (its writes fail).
func TestExportPoolCloseEndsExport(t *testing.T) {
	done := make(chan error, 1)
	p := &exportPool{exp: &fakeExport{content: exportContent(12000), done: done}}
	if _, err := p.read(make([]byte, 10), 0); err != nil {
		t.Fatal(err)
	}
	p.close()
	if err := <-done; !errors.Is(err, errPipeClosed) {
		t.Fatalf("export ended with %v, want a closed pipe", err)
	}
	if _, err := p.read(make([]byte, 10), 0); err == nil {
		t.Fatal("read after close succeeded")
	}
}

// Two files read at once through one node (a read-only mount shares the
// node's pool) keep one export each: neither steals the other's.
func TestExportPoolInterleavedReaders(t *testing.T) {
	content := exportContent(12000)
	exp := &fakeExport{content: content}
	p := &exportPool{exp: exp}
	defer p.close()
	buf := make([]byte, 128<<10)
	var a, b int64 = 0, 0
	for a < 6<<20 { // a is beyond the ring's reach of offset 0
		n, _ := p.read(buf, a)
		a += int64(n)
	}
	for int(b) < len(content) {
		for _, off := range []*int64{&a, &b} {
			n, err := p.read(buf, *off)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf[:n], content[*off:*off+int64(n)]) {
				t.Fatalf("read at %d: wrong bytes", *off)
			}
			*off += int64(n)
		}
	}
	if runs := exp.runs.Load(); runs != 2 {
		t.Fatalf("%d exports for two sequential readers, want 2", runs)
	}
}

// A dropped pool (a node the kernel forgot, maybe revived) reads on.
func TestExportPoolDropReadsOn(t *testing.T) {
	content := exportContent(100)
	p := &exportPool{exp: &fakeExport{content: content}}
	defer p.close()
	buf := make([]byte, 100)
	if _, err := p.read(buf, 0); err != nil {
		t.Fatal(err)
	}
	p.drop()
	if n, err := p.read(buf, 50); err != nil || !bytes.Equal(buf[:n], content[50:150]) {
		t.Fatalf("read after drop = %d, %v", n, err)
	}
}

func TestExportSize(t *testing.T) {
	content := exportContent(1000)
	if n, err := exportSize(&fakeExport{content: content}); err != nil || n != int64(len(content)) {
		t.Fatalf("exportSize = %d, %v; want %d", n, err, len(content))
	}
}
