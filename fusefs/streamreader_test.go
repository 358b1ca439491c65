package fusefs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"testing"
)

var errSkipped = errors.New("skipped line")

// testStream makes passes over lines; at every 7th position Next
// returns errSkipped first, and failAt > 0 returns a hard error after that
// many lines.
func testStream(lines [][]byte, failAt int, passes *int) func() LineSource {
	return func() LineSource {
		*passes++
		return &testSource{lines: lines, failAt: failAt}
	}
}

type testSource struct {
	lines   [][]byte
	failAt  int
	i       int
	skipped bool // the skip before line i was returned
	buf     []byte
}

func (s *testSource) Next() ([]byte, error) {
	if s.i == len(s.lines) {
		return nil, io.EOF
	}
	if s.failAt > 0 && s.i == s.failAt {
		return nil, errors.New("disk on fire")
	}
	if s.i%7 == 0 && !s.skipped {
		s.skipped = true
		return nil, errSkipped
	}
	s.buf = append(s.buf[:0], s.lines[s.i]...) // reused, like the engine's
	s.i++
	s.skipped = false
	return s.buf, nil
}

func (s *testSource) Close() error { return nil }

func testLines(n, width int) ([][]byte, []byte) {
	var lines [][]byte
	var all []byte
	for i := range n {
		l := []byte(fmt.Sprintf("{\"n\":%d,\"pad\":%q}\n", i, bytes.Repeat([]byte("x"), i%width)))
		lines = append(lines, l)
		all = append(all, l...)
	}
	return lines, all
}

func TestStreamReader(t *testing.T) {
	lines, all := testLines(30000, 300) // ~4.8 MB, several windows
	size := int64(len(all))
	skip := func(err error) bool { return errors.Is(err, errSkipped) }
	tests := []struct {
		name      string
		offsets   func() []int64
		chunk     int
		maxPasses int
	}{
		{"sequential", func() []int64 { return stepOffsets(0, size, 128<<10) }, 128 << 10, 1},
		{"backwards from the end like tail", func() []int64 {
			var offs []int64
			for off := size - 8192; off > size-600<<10; off -= 8192 {
				offs = append(offs, off)
			}
			return offs
		}, 8192, 1},
		{"one huge read", func() []int64 { return []int64{0} }, len(all) + 10, 1},
		{"random", func() []int64 {
			rng := rand.New(rand.NewSource(1))
			offs := make([]int64, 50)
			for i := range offs {
				offs[i] = rng.Int63n(size + 100)
			}
			return offs
		}, 4096, 51},
		{"past the end", func() []int64 { return []int64{size, size + 5} }, 100, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			passes := 0
			r := newStreamReader(testStream(lines, 0, &passes), skip)
			defer r.Close()
			for _, off := range tc.offsets() {
				p := make([]byte, tc.chunk)
				n, err := r.ReadAt(p, off)
				want := all[min(off, size):min(off+int64(tc.chunk), size)]
				if !bytes.Equal(p[:n], want) {
					t.Fatalf("ReadAt(%d, %d) = %d bytes, want %d, content differs", tc.chunk, off, n, len(want))
				}
				if n < tc.chunk && err != io.EOF {
					t.Fatalf("short read at %d without io.EOF: %v", off, err)
				}
			}
			if passes > tc.maxPasses {
				t.Errorf("%d passes over the stream, want at most %d", passes, tc.maxPasses)
			}
			if len(r.win) > streamWindow {
				t.Errorf("window grew to %d bytes", len(r.win))
			}
		})
	}
}

func TestStreamReaderTail(t *testing.T) {
	lines, all := testLines(5000, 100)
	passes := 0
	tail := all[len(all)-1000:]
	r := newStreamReader(testStream(lines, 0, &passes), func(error) bool { return true }).withTail(tail, int64(len(all)))
	p := make([]byte, 4096)
	n, err := r.ReadAt(p, int64(len(all))-500)
	if n != 500 || err != io.EOF || !bytes.Equal(p[:n], all[len(all)-500:]) {
		t.Fatalf("tail read: n=%d err=%v", n, err)
	}
	if passes != 0 {
		t.Errorf("tail read streamed %d passes", passes)
	}
}

func TestStreamReaderErrors(t *testing.T) {
	lines, _ := testLines(100, 10)
	passes := 0
	// Nothing skipped: the skippable error is a hard one too.
	r := newStreamReader(testStream(lines, 0, &passes), nil)
	if _, err := r.ReadAt(make([]byte, 10), 0); !errors.Is(err, errSkipped) {
		t.Fatalf("err = %v, want the stream's error", err)
	}
	r = newStreamReader(testStream(lines, 50, &passes), func(err error) bool { return errors.Is(err, errSkipped) })
	if _, err := r.ReadAt(make([]byte, 1<<20), 0); err == nil || err == io.EOF {
		t.Fatalf("err = %v, want the stream's failure", err)
	}
	r.Close()
}

func TestAppendWindowBounded(t *testing.T) {
	var win []byte
	big := bytes.Repeat([]byte("y"), streamWindow+10)
	for _, l := range [][]byte{[]byte("a\n"), big, []byte("b\n"), bytes.Repeat([]byte("z"), 1000)} {
		win = appendWindow(win, l)
		if !bytes.HasSuffix(win, l) {
			t.Fatal("window lost the newest line")
		}
		if len(win) > max(streamWindow, len(l)) {
			t.Fatalf("window %d bytes after a %d-byte line", len(win), len(l))
		}
	}
}

func stepOffsets(from, to, step int64) []int64 {
	var offs []int64
	for off := from; off < to; off += step {
		offs = append(offs, off)
	}
	return offs
}
