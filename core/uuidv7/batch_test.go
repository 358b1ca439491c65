package uuidv7

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/uuid"
)

// NewBatch must return exactly what NewAt returns for the same clock
// reading, carries and wrap included, and leave the same state behind.
func TestNewBatchMatchesNewAt(t *testing.T) {
	entropies := [][10]byte{
		{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0xfe},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd}, // wraps
		{0, 0, 0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0},       // hidden-bit carry
	}
	for _, e := range entropies {
		now := func() int64 { return vectorTs }
		batch := newGeneratorWithState(now, failingReader{}, vectorTs, e)
		single := newGeneratorWithState(now, failingReader{}, vectorTs, e)
		ids, err := batch.NewBatch(300)
		if err != nil || len(ids) != 300 {
			t.Fatalf("NewBatch: %d ids, %v", len(ids), err)
		}
		for i, got := range ids {
			want, err := single.NewAt(vectorTs)
			if err != nil || got != want {
				t.Fatalf("id %d = %q; NewAt gives %q, %v", i, got, want, err)
			}
		}
		next, _ := batch.New()
		want, _ := single.New()
		if next != want {
			t.Fatalf("state after batch: %q, want %q", next, want)
		}
	}
}

func TestNewBatchFreshMillisecondAndErrors(t *testing.T) {
	random := bytes.NewReader([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	g := NewGenerator(func() int64 { return vectorTs }, random)
	ids, err := g.NewBatch(3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"018bcfe5-6800-7102-8304-05060708090a", "018bcfe5-6800-7102-8304-05060708090b", "018bcfe5-6800-7102-8304-05060708090c"}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("ids = %q, want %q", ids, want)
		}
	}
	if ids, err := g.NewBatch(0); err != nil || len(ids) != 0 {
		t.Fatalf("NewBatch(0) = %q, %v", ids, err)
	}
	broke := NewGenerator(func() int64 { return vectorTs }, failingReader{})
	if _, err := broke.NewBatch(2); err == nil {
		t.Fatal("NewBatch with failing entropy succeeded")
	}
	far := NewGenerator(func() int64 { return MaxTimestampMs + 1 }, nil)
	if _, err := far.NewBatch(1); !errors.Is(err, ErrTimestampRange) {
		t.Fatalf("out of range: %v", err)
	}
}

// putText must print what google/uuid prints for the same 16 bytes.
func FuzzPutText(f *testing.F) {
	f.Add(int64(vectorTs), []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0xfe})
	f.Add(int64(MaxTimestampMs), bytes.Repeat([]byte{0xff}, 10))
	f.Add(int64(0), make([]byte, 10))
	f.Fuzz(func(t *testing.T, ts int64, raw []byte) {
		ts &= MaxTimestampMs
		var e [10]byte
		copy(e[:], raw)
		var u uuid.UUID
		for i, v := 5, ts; i >= 0; i-- {
			u[i] = byte(v)
			v >>= 8
		}
		u[6] = 0x70 | e[0]&0x0f
		u[7] = e[1]
		u[8] = 0x80 | e[2]&0x3f
		copy(u[9:], e[3:])
		var got [TextLen]byte
		putText(got[:], ts, e)
		if string(got[:]) != u.String() || !Valid(string(got[:])) {
			t.Fatalf("putText = %q, google/uuid %q", got, u.String())
		}
	})
}

func BenchmarkNewBatch(b *testing.B) {
	g := NewGenerator(nil, nil)
	for i := 0; i < b.N; i++ {
		if _, err := g.NewBatch(1000); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/id")
}
