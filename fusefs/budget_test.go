package fusefs

import (
	"bytes"
	"context"
	"io"
	"log"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/core/phpjson"
)

// TestMemBufModel drives a memBuf with random writes (past EOF too),
// resizes and reads across the spill threshold, checking every read and
// size against a plain slice, and the budget charge against the content's
// place (memory or spill file).
func TestMemBufModel(t *testing.T) {
	for _, spillDir := range []string{"", t.TempDir()} {
		seed := uint64(time.Now().UnixNano())
		rng := rand.New(rand.NewPCG(seed, 1))
		budget := testBudget(maxFileSize*2, spillDir)
		m := memBuf{budget: budget}
		var model []byte
		maxOff := 3 * spillThreshold
		for op := range 1500 {
			switch rng.IntN(4) {
			case 0, 1:
				p := make([]byte, 1+rng.IntN(64<<10))
				for i := range p {
					p[i] = byte(rng.Uint32())
				}
				off := rng.IntN(maxOff)
				if errno := m.writeAt(p, int64(off)); errno != 0 {
					t.Fatalf("seed %d op %d: writeAt(%d, %d): %v", seed, op, len(p), off, errno)
				}
				if end := off + len(p); end > len(model) {
					model = append(model, make([]byte, end-len(model))...)
				}
				copy(model[off:], p)
			case 2:
				size := rng.IntN(maxOff)
				if rng.IntN(8) == 0 {
					size = 0
				}
				if errno := m.resize(size); errno != 0 {
					t.Fatalf("seed %d op %d: resize(%d): %v", seed, op, size, errno)
				}
				if size <= len(model) {
					model = model[:size]
				} else {
					model = append(model, make([]byte, size-len(model))...)
				}
			case 3:
				off := rng.IntN(maxOff + 10)
				dest := make([]byte, rng.IntN(256<<10))
				got, errno := m.readAt(dest, int64(off))
				if errno != 0 {
					t.Fatalf("seed %d op %d: readAt: %v", seed, op, errno)
				}
				want := sliceAt(model, make([]byte, len(dest)), int64(off))
				if !bytes.Equal(got, want) {
					t.Fatalf("seed %d op %d: readAt(%d, %d) differs from the model", seed, op, len(dest), off)
				}
			}
			if m.size() != len(model) {
				t.Fatalf("seed %d op %d: size %d, model %d", seed, op, m.size(), len(model))
			}
			if spillDir != "" && m.file == nil && budget.inUse() > spillThreshold {
				t.Fatalf("seed %d op %d: %d bytes in memory, above the spill threshold", seed, op, budget.inUse())
			}
		}
		all, errno := m.bytes()
		if errno != 0 || !bytes.Equal(all, model) {
			t.Fatalf("seed %d: bytes() differs from the model (%v)", seed, errno)
		}
		m.free()
		if used := budget.inUse(); used != 0 {
			t.Errorf("%d bytes charged after free", used)
		}
	}
}

// A large buffer spills to a file: the budget then holds no memory for
// it, so many large unsaved files fit in a small budget; growing one past
// what could ever be committed within the budget fails at the write.
func TestMemBufSpillsLargeContent(t *testing.T) {
	budget := testBudget(32<<20, t.TempDir())
	bufs := make([]memBuf, 4)
	for i := range bufs {
		bufs[i].budget = budget
		if errno := bufs[i].writeAt(make([]byte, 3<<20), 0); errno != 0 {
			t.Fatalf("buffer %d: %v", i, errno)
		}
		if bufs[i].file == nil {
			t.Fatalf("buffer %d of 3 MiB kept in memory", i)
		}
	}
	if used := budget.inUse(); used != 0 {
		t.Errorf("spilled buffers charge %d bytes of memory", used)
	}
	if errno := bufs[0].writeAt([]byte("x"), 6<<20); errno != syscall.ENOSPC {
		t.Errorf("growing to a size whose commit needs %d of %d bytes = %v, want ENOSPC", minCommitCost(6<<20, true), 32<<20, errno)
	}
	if errno := bufs[0].resize(6 << 20); errno != syscall.ENOSPC {
		t.Errorf("truncating up past the committable size = %v, want ENOSPC", errno)
	}
	for i := range bufs {
		bufs[i].free()
	}
}

// A commit of spilled content charges its working memory: it fails with
// ENOSPC when in-memory buffers leave too little, and waits while another
// commit holds what it needs.
func TestCommitReservation(t *testing.T) {
	budget := testBudget(20<<20, t.TempDir()) // one 2 MiB commit needs 12 MiB
	spilled := func() *memBuf {
		m := &memBuf{budget: budget}
		if errno := m.writeAt(make([]byte, 2<<20), 0); errno != 0 {
			t.Fatal(errno)
		}
		return m
	}
	small := make([]memBuf, 9)
	for i := range small {
		small[i].budget = budget
		if errno := small[i].writeAt(make([]byte, spillThreshold), 0); errno != 0 {
			t.Fatal(errno)
		}
	}
	first := spilled()
	called := false
	if errno := commitWith(first, func([]byte) syscall.Errno { called = true; return 0 }); errno != syscall.ENOSPC || called {
		t.Errorf("commit needing %d bytes beside %d in memory = %v (store called: %v), want ENOSPC", minCommitCost(2<<20, true), budget.inUse(), errno, called)
	}
	for i := range small {
		small[i].free()
	}

	entered, release := make(chan struct{}), make(chan struct{})
	firstDone := make(chan syscall.Errno)
	go func() {
		firstDone <- commitWith(first, func(content []byte) syscall.Errno {
			close(entered)
			<-release
			return 0
		})
	}()
	<-entered
	second := spilled()
	secondDone := make(chan syscall.Errno)
	go func() {
		secondDone <- commitWith(second, func(content []byte) syscall.Errno {
			if len(content) != 2<<20 {
				t.Errorf("second commit got %d bytes", len(content))
			}
			return 0
		})
	}()
	select {
	case errno := <-secondDone:
		t.Fatalf("second commit ran beside the first (%v): together they exceed the budget", errno)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if errno := <-firstDone; errno != 0 {
		t.Fatal(errno)
	}
	select {
	case errno := <-secondDone:
		if errno != 0 {
			t.Fatalf("second commit after the first ended: %v", errno)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("second commit still waiting after the first ended")
	}
	first.free()
	second.free()
	if used := budget.inUse(); used != 0 {
		t.Errorf("%d bytes charged after everything ended", used)
	}
}

func testBudget(limit int64, spillDir string) *memBudget {
	return newMemBudget(limit, spillDir, log.New(io.Discard, "", 0))
}

func TestJSONShape(t *testing.T) {
	for _, c := range []struct {
		text            string
		values, escapes int64
	}{
		{`{"id":"x","data":{"a":[1,2,3]}}`, 6, 0},
		{`{"s":"a,b[c{d\"e,f"}`, 1, 1},
		{"// a \"quote, in a comment\n[1,2]", 2, 0},
		{"// a line comment ends at a CR\r[1,2]", 2, 0},
		{"/* \" , [ */ [1,2] /* * / */ ,", 3, 0},
		{`"\\",[`, 2, 1},
	} {
		var s jsonShape
		// Fed in pieces of one byte: the lexer state carries over.
		for i := range len(c.text) {
			s.scan([]byte(c.text[i : i+1]))
		}
		if s.values != c.values || s.escapes != c.escapes {
			t.Errorf("%s: %d values, %d escapes; want %d, %d", c.text, s.values, s.escapes, c.values, c.escapes)
		}
	}
}

// A small record of many values parses to far more than its size (2 MiB
// of "[0,0,...]" peaks at 204 MiB in the store): its commit is charged
// by values and refused when that cannot fit, before the store parses it.
func TestCommitChargesParsedValues(t *testing.T) {
	budget := testBudget(64<<20, t.TempDir())
	for _, spilled := range []bool{false, true} {
		values := 400 << 10 // in memory: below the spill threshold
		if spilled {
			values = 1 << 20
		}
		m := memBuf{budget: budget}
		content := []byte(`{"id":"x","data":{"a":[0` + strings.Repeat(",0", values) + `]}}`)
		if errno := m.set(content); errno != 0 {
			t.Fatal(errno)
		}
		if (m.file != nil) != spilled {
			t.Fatalf("spilled = %v, want %v", m.file != nil, spilled)
		}
		called := false
		if errno := commitWith(&m, func([]byte) syscall.Errno { called = true; return 0 }); errno != syscall.ENOSPC || called {
			t.Errorf("spilled %v: commit of %d values with a 64 MiB budget = %v (store called: %v), want ENOSPC", spilled, values, errno, called)
		}
		m.free()
	}
	blob := memBuf{budget: budget}
	content := []byte(`{"id":"x","data":{"a":"` + strings.Repeat("[0,", 2<<20) + `"}}`)
	if errno := blob.set(content); errno != 0 {
		t.Fatal(errno)
	}
	if errno := commitWith(&blob, func(got []byte) syscall.Errno {
		if !bytes.Equal(got, content) {
			t.Errorf("store got %d bytes, want %d", len(got), len(content))
		}
		return 0
	}); errno != 0 {
		t.Errorf("commit of a 6 MiB string holding commas: %v", errno)
	}
	blob.free()
	if used := budget.inUse(); used != 0 {
		t.Errorf("%d bytes charged after everything ended", used)
	}
}

// truncate(2) by path with no open buffer commits the cut record through
// the budget: a record whose commit cannot fit is refused, unchanged.
func TestTruncateByPathIsCharged(t *testing.T) {
	s := newFakeStore(t)
	many := `{"id":"` + idA + `","a":[0` + strings.Repeat(",0", 100<<10) + `]}`
	if err := s.PutRaw(idA, []byte(many)); err != nil {
		t.Fatal(err)
	}
	c := collectionWith(fakeCatalog{store: s}, 16<<20)
	in := fuse.SetAttrIn{}
	in.Size = uint64(len(many) + 10)
	in.Valid = fuse.FATTR_SIZE
	var out fuse.AttrOut
	if errno := c.setRecordAttr(context.Background(), nil, idA, nil, &in, &out); errno != syscall.ENOSPC {
		t.Errorf("truncate by path of %d values with a 16 MiB budget = %v, want ENOSPC", 100<<10, errno)
	}
	if got := s.content(idA); got != many {
		t.Errorf("a refused truncate changed the record")
	}
	if used := c.m.budget.inUse(); used != 0 {
		t.Errorf("%d bytes charged after the truncate", used)
	}
}

// bytes returns a copy of the content.
func (m *memBuf) bytes() ([]byte, syscall.Errno) {
	if m.file != nil {
		return m.file.readAll()
	}
	return append([]byte(nil), m.data...), 0
}

// A reader of a new record still being written reads a snapshot of the
// writer's buffer: a large one is spilled, not copied into memory, and
// released with the reader.
func TestSnapshotOfLargeBufferIsSpilled(t *testing.T) {
	ctx := context.Background()
	s := newFakeStore(t)
	c := collectionWith(fakeCatalog{store: s}, 32<<20)
	w, errno := c.createRecord(idA, syscall.O_CREAT|syscall.O_WRONLY)
	if errno != 0 {
		t.Fatal(errno)
	}
	content := bytes.Repeat([]byte("0123456789abcdef"), 3<<20/16)
	if _, errno := w.Write(ctx, content, 0); errno != 0 {
		t.Fatal(errno)
	}
	var readers []*bufferReadHandle
	for range 8 {
		fh, _, errno := c.openRecord(idA, syscall.O_RDONLY, &pageCache{})
		if errno != 0 {
			t.Fatalf("read open beside the writer: %v", errno)
		}
		r, ok := fh.(*bufferReadHandle)
		if !ok {
			t.Fatalf("read open of a new record gave %T", fh)
		}
		readers = append(readers, r)
	}
	if used := c.m.budget.inUse(); used != 0 {
		t.Errorf("8 snapshots of a 3 MiB buffer hold %d bytes of memory", used)
	}
	res, errno := readers[0].Read(ctx, make([]byte, 100), 1<<20)
	if errno != 0 {
		t.Fatal(errno)
	}
	if got, _ := res.Bytes(make([]byte, 100)); !bytes.Equal(got, content[1<<20:1<<20+100]) {
		t.Errorf("snapshot read %q", got)
	}
	for _, r := range readers {
		r.Release(ctx)
	}
	w.Release(ctx)
}

// A large scratch file (spilled) renamed onto a record name is committed
// from its spill file, which is then closed.
func TestPromoteSpilledScratch(t *testing.T) {
	s := newFakeStore(t)
	c := collectionWith(fakeCatalog{store: s}, 64<<20)
	sf, errno := c.createScratch("x.tmp", syscall.O_CREAT)
	if errno != 0 {
		t.Fatal(errno)
	}
	content := `{"id":"` + idA + `","pad":"` + strings.Repeat("p", 3<<20) + `"}`
	if errno := sf.data.set([]byte(content)); errno != 0 {
		t.Fatal(errno)
	}
	if sf.data.file == nil {
		t.Fatalf("3 MiB scratch file kept in memory")
	}
	if errno := c.promoteScratch(s, sf, idA, false); errno != 0 {
		t.Fatalf("promote: %v", errno)
	}
	if got := s.content(idA); got != content {
		t.Errorf("stored %d bytes, want %d", len(got), len(content))
	}
	if sf.data.file != nil || c.m.budget.inUse() != 0 {
		t.Errorf("after the promotion: spill file %v, %d bytes charged", sf.data.file, c.m.budget.inUse())
	}
}

// With a spill directory, in-memory buffers take at most half the budget:
// further content spills instead of failing, and memory stays bounded.
func TestInMemoryBuffersTakeHalfTheBudget(t *testing.T) {
	budget := testBudget(8<<20, t.TempDir())
	bufs := make([]memBuf, 12)
	for i := range bufs {
		bufs[i].budget = budget
		if errno := bufs[i].writeAt(make([]byte, spillThreshold), 0); errno != 0 {
			t.Fatalf("buffer %d: %v", i, errno)
		}
	}
	spilled := 0
	for i := range bufs {
		if bufs[i].file != nil {
			spilled++
		}
	}
	if used := budget.inUse(); used > 4<<20 || spilled != 8 {
		t.Errorf("12 buffers of 1 MiB in an 8 MiB budget: %d bytes in memory, %d spilled; want 4 MiB, 8", used, spilled)
	}
	for i := range bufs {
		bufs[i].free()
	}
}

// A spill file that cannot be made fails the write that needed it, with
// the reason logged, and leaves the content as it was.
func TestSpillFailureFailsTheWrite(t *testing.T) {
	var logged bytes.Buffer
	budget := newMemBudget(64<<20, filepath.Join(t.TempDir(), "missing"), log.New(&logged, "", 0))
	m := memBuf{budget: budget}
	if errno := m.writeAt([]byte("kept"), 0); errno != 0 {
		t.Fatal(errno)
	}
	if errno := m.writeAt(make([]byte, 2<<20), 0); errno != syscall.ENOENT {
		t.Errorf("write needing a spill file in a missing folder = %v, want ENOENT", errno)
	}
	if got, _ := m.bytes(); string(got) != "kept" {
		t.Errorf("content after the failed write: %d bytes", len(got))
	}
	if !strings.Contains(logged.String(), "spill file in") {
		t.Errorf("nothing logged: %q", logged.String())
	}
	m.free()
}

// jsonShape counts exactly the values left after storh's own comment pass
// (phpjson.StripComments): random texts of JSONC's special bytes.
func TestJSONShapeAgreesWithStripComments(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 3))
	const alphabet = "\"\\/*\n\r,[{a "
	for range 20000 {
		text := make([]byte, rng.IntN(40))
		for i := range text {
			text[i] = alphabet[rng.IntN(len(alphabet))]
		}
		var s jsonShape
		s.scan(text)
		want := int64(0)
		inString, escaped := false, false
		for _, c := range phpjson.StripComments(text) {
			switch {
			case !inString:
				inString = c == '"'
				if c == ',' || c == '[' || c == '{' {
					want++
				}
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		}
		if s.values != want {
			t.Fatalf("seed %d: %q: %d values, StripComments leaves %d", seed, text, s.values, want)
		}
	}
}

// commitWith is m.commit for a store that cannot fail with a reason.
func commitWith(m *memBuf, store func([]byte) syscall.Errno) syscall.Errno {
	errno, _ := m.commit(func(content []byte) (syscall.Errno, error) { return store(content), nil })
	return errno
}
