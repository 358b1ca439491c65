package integration

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// fsxOps is the number of random operations per fsx run: 5000, or
// STORHFS_FSX_OPS. STORHFS_FSX_SEED replays a run.
func fsxOps(t *testing.T) int {
	if s := os.Getenv("STORHFS_FSX_OPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("STORHFS_FSX_OPS=%q: %v", s, err)
		}
		return n
	}
	return 5000
}

func fsxSeed(t *testing.T) uint64 {
	if s := os.Getenv("STORHFS_FSX_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("STORHFS_FSX_SEED=%q: %v", s, err)
		}
		return n
	}
	return uint64(time.Now().UnixNano())
}

// fsxMaxSize bounds the file: above the mount's 1 MiB spill threshold, so
// the content moves between memory and a spill file.
const fsxMaxSize = 3 << 20

// fsx drives random operations on one open file of the mount and checks
// each result against model, the bytes the file must hold.
type fsx struct {
	t     *testing.T
	seed  uint64
	rng   *rand.Rand
	path  string
	f     *os.File
	model []byte
	op    int
	last  string // the last operation, for failure messages
}

func newFsx(t *testing.T, path string, model []byte) *fsx {
	seed := fsxSeed(t)
	t.Logf("fsx seed %d (STORHFS_FSX_SEED=%d replays it)", seed, seed)
	x := &fsx{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 17)), path: path, model: model}
	x.open()
	return x
}

func (x *fsx) fail(format string, args ...any) {
	x.t.Helper()
	x.t.Fatalf("fsx seed %d op %d (%s): %s", x.seed, x.op, x.last, fmt.Sprintf(format, args...))
}

func (x *fsx) open() {
	f, err := os.OpenFile(x.path, os.O_RDWR, 0)
	if err != nil {
		x.fail("open: %v", err)
	}
	x.f = f
}

// step runs one random operation; reopen allows close and open again.
func (x *fsx) step(reopen bool) {
	x.t.Helper()
	x.op++
	switch n := x.rng.IntN(100); {
	case n < 40:
		x.write()
	case n < 55:
		x.truncate()
	case n < 85:
		x.read()
	case n < 92:
		x.stat()
	case n < 97:
		x.mmapRead()
	case reopen:
		x.last = "close, open"
		if err := x.f.Close(); err != nil {
			x.fail("close: %v", err)
		}
		x.open()
	default:
		x.read()
	}
}

// offset picks an offset, sometimes past the end (leaving a hole).
func (x *fsx) offset() int {
	if x.rng.IntN(4) == 0 {
		return x.rng.IntN(fsxMaxSize)
	}
	return x.rng.IntN(len(x.model) + 1)
}

func (x *fsx) write() {
	x.t.Helper()
	off := x.offset()
	p := make([]byte, 1+x.rng.IntN(min(64<<10, fsxMaxSize-off)))
	for i := range p {
		p[i] = byte(x.rng.Uint32())
	}
	x.last = fmt.Sprintf("write %d at %d, size %d", len(p), off, len(x.model))
	if n, err := x.f.WriteAt(p, int64(off)); err != nil || n != len(p) {
		x.fail("wrote %d: %v", n, err)
	}
	if end := off + len(p); end > len(x.model) {
		x.model = append(x.model, make([]byte, end-len(x.model))...)
	}
	copy(x.model[off:], p)
}

func (x *fsx) truncate() {
	x.t.Helper()
	size := x.offset()
	if x.rng.IntN(10) == 0 {
		size = 0
	}
	x.last = fmt.Sprintf("truncate %d to %d", len(x.model), size)
	if err := x.f.Truncate(int64(size)); err != nil {
		x.fail("%v", err)
	}
	if size <= len(x.model) {
		x.model = x.model[:size]
	} else {
		x.model = append(x.model, make([]byte, size-len(x.model))...)
	}
}

func (x *fsx) read() {
	x.t.Helper()
	off := x.offset()
	dest := make([]byte, x.rng.IntN(128<<10))
	x.last = fmt.Sprintf("read %d at %d, size %d", len(dest), off, len(x.model))
	n, err := x.f.ReadAt(dest, int64(off))
	if err != nil && !errors.Is(err, io.EOF) {
		x.fail("%v", err)
	}
	want := x.model[min(off, len(x.model)):min(off+len(dest), len(x.model))]
	if !bytes.Equal(dest[:n], want) {
		x.fail("read %d bytes, want %d; first difference at %d", n, len(want), firstDiff(dest[:n], want))
	}
}

func (x *fsx) stat() {
	x.t.Helper()
	x.last = fmt.Sprintf("fstat, size %d", len(x.model))
	fi, err := x.f.Stat()
	if err != nil {
		x.fail("%v", err)
	}
	if fi.Size() != int64(len(x.model)) {
		x.fail("fstat size %d, want %d", fi.Size(), len(x.model))
	}
}

// mmapRead maps the file privately and compares a window (the mount's
// write buffers are direct_io: the kernel allows only private mappings).
// A writable private mapping's changes must not reach the file.
func (x *fsx) mmapRead() {
	x.t.Helper()
	size := len(x.model)
	writable := x.rng.IntN(2) == 0
	x.last = fmt.Sprintf("mmap private (writable %v), size %d", writable, size)
	if size == 0 {
		return
	}
	prot := syscall.PROT_READ
	if writable {
		prot |= syscall.PROT_WRITE
	}
	mem, err := syscall.Mmap(int(x.f.Fd()), 0, size, prot, syscall.MAP_PRIVATE)
	if err != nil {
		x.fail("mmap: %v", err)
	}
	off := x.rng.IntN(size)
	end := min(size, off+x.rng.IntN(64<<10))
	if !bytes.Equal(mem[off:end], x.model[off:end]) {
		x.fail("mapped bytes %d..%d differ at %d", off, end, off+firstDiff(mem[off:end], x.model[off:end]))
	}
	if writable {
		mem[off] ^= 0xff
	}
	if err := syscall.Munmap(mem); err != nil {
		x.fail("munmap: %v", err)
	}
	if writable {
		got := make([]byte, 1)
		if _, err := x.f.ReadAt(got, int64(off)); err != nil || got[0] != x.model[off] {
			x.fail("a private mapping's write reached the file at %d (%v)", off, err)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// checkSharedMmap checks what a shared mapping of an open write buffer
// does: the kernel refuses MAP_SHARED of a direct_io file with ENODEV;
// without OPEN (--no-open) there is no direct I/O and the mapping is made,
// and what it shows is the buffer. Either way nothing may change.
func (x *fsx) checkSharedMmap() {
	x.t.Helper()
	x.last = "mmap shared"
	if len(x.model) == 0 {
		return
	}
	mem, err := syscall.Mmap(int(x.f.Fd()), 0, len(x.model), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	switch {
	case noOpen && err != nil:
		x.fail("MAP_SHARED without OPEN: %v, want a mapping", err)
	case noOpen:
		if !bytes.Equal(mem, x.model) {
			x.fail("MAP_SHARED shows content that differs at %d", firstDiff(mem, x.model))
		}
		syscall.Munmap(mem)
	case err == nil:
		syscall.Munmap(mem)
		x.fail("MAP_SHARED of a direct_io write buffer succeeded; the test expects ENODEV (update it if the mount now allows shared mappings)")
	case !errors.Is(err, syscall.ENODEV):
		x.fail("MAP_SHARED: %v, want ENODEV", err)
	}
	x.read()
}

// Issue 17, fsx: random writes (past EOF too), truncations, reads, fstat
// and private mappings of a scratch file, closed and reopened at random,
// against an in-memory model; the content crosses the spill threshold.
func TestFsxScratchFile(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 5)
	m := startMount(t, root)
	path := m.path("pages", "x.tmp")
	writeFile(t, path, "")
	x := newFsx(t, path, nil)
	x.checkSharedMmap()
	for range fsxOps(t) {
		x.step(true)
	}
	x.stat()
	if err := x.f.Close(); err != nil {
		x.fail("close: %v", err)
	}
	if got := readFile(t, path); !bytes.Equal(got, x.model) {
		x.fail("content after the last close differs at %d", firstDiff(got, x.model))
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// Issue 17, fsx on a record's write buffer: within one open, random
// operations behave like on any file; the close commits only a valid
// record: a random final content is refused with EINVAL leaving the
// stored record as it was, a valid one is stored exactly.
func TestFsxRecordWriteBuffer(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 5)
	m := startMount(t, root)
	id := storedIDs(t, root, "pages")[0]
	path := m.path("pages", id+".jsonc")
	stored := string(readFile(t, storedPath(root, "pages", id)))
	ops := fsxOps(t)
	for round := range 4 {
		x := newFsx(t, path, []byte(stored))
		x.checkSharedMmap()
		for range ops / 4 {
			x.step(false)
		}
		x.stat()
		if round%2 == 0 {
			x.last = "close with random content"
			if err := x.f.Close(); !errors.Is(err, syscall.EINVAL) {
				x.fail("close: %v, want EINVAL (not a record)", err)
			}
			if got := storedContent(t, root, "pages", id); got != stored {
				x.fail("a refused close changed the stored record")
			}
			continue
		}
		stored = record(id, fmt.Sprintf(`{"round":%d,"size":%d}`, round, len(x.model)))
		x.last = "truncate 0, write a valid record, close"
		if err := x.f.Truncate(0); err != nil {
			x.fail("%v", err)
		}
		if _, err := x.f.WriteAt([]byte(stored), 0); err != nil {
			x.fail("%v", err)
		}
		if err := x.f.Close(); err != nil {
			x.fail("close: %v", err)
		}
		if got := storedContent(t, root, "pages", id); got != stored {
			x.fail("stored %q, want %q", got, stored)
		}
	}
	verify(t, root, "pages")
}
