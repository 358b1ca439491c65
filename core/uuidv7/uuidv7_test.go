package uuidv7

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

const vectorTs = 1700000000000

func TestGeneratorSpecVector(t *testing.T) {
	g := newGeneratorWithState(nil, failingReader{}, vectorTs,
		[10]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0xfe})
	want := []string{
		"018bcfe5-6800-7234-9678-9abcdef011ff",
		"018bcfe5-6800-7234-9678-9abcdef01200",
		"018bcfe5-6800-7234-9678-9abcdef01201",
	}
	for i, w := range want {
		got, err := g.NewAt(vectorTs)
		if err != nil || got != w {
			t.Fatalf("id %d = %q, %v; want %q", i, got, err, w)
		}
	}
}

func TestGeneratorCarry(t *testing.T) {
	cases := []struct {
		name    string
		entropy [10]byte
		want    string
	}{
		{"carry over two bytes", [10]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0xff, 0xff}, "018bcfe5-6800-7234-9678-9abcdef10000"},
		{"all ff wraps to zero", [10]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "018bcfe5-6800-7000-8000-000000000000"},
		// docs/format/docstore.md §3.2 quirk: a carry into the hidden bits of e2 makes the visible value drop.
		{"hidden bits of e2", [10]byte{0, 0, 0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "018bcfe5-6800-7000-8000-000000000000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := newGeneratorWithState(nil, failingReader{}, vectorTs, c.entropy)
			got, err := g.NewAt(vectorTs)
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestGeneratorFreshEntropyPerMillisecond(t *testing.T) {
	random := bytes.NewReader([]byte{
		0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0xfe, // first ms
		0xff, 0xff, 0xff, 0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, // clock went backwards
	})
	now := int64(vectorTs)
	g := NewGenerator(func() int64 { return now }, random)
	steps := []struct {
		ms   int64
		want string
	}{
		{vectorTs, "018bcfe5-6800-7234-9678-9abcdef011fe"},
		{vectorTs, "018bcfe5-6800-7234-9678-9abcdef011ff"},
		{vectorTs - 1, "018bcfe5-67ff-7fff-bfff-000102030405"},
	}
	for i, s := range steps {
		now = s.ms
		got, err := g.New()
		if err != nil || got != s.want {
			t.Fatalf("step %d: %q, %v; want %q", i, got, err, s.want)
		}
	}
	// Entropy exhausted: the error surfaces, no id is made up.
	if _, err := g.NewAt(vectorTs + 5); err == nil {
		t.Fatal("want error from exhausted entropy")
	}
}

func TestGeneratorRange(t *testing.T) {
	g := NewGenerator(nil, nil)
	for _, ms := range []int64{-1, MaxTimestampMs + 1, -1 << 63} {
		if _, err := g.NewAt(ms); !errors.Is(err, ErrTimestampRange) {
			t.Errorf("NewAt(%d) err = %v", ms, err)
		}
	}
	if ErrTimestampRange.Error() != "UUIDv7 timestamp is outside the 48-bit range." || ErrInvalid.Error() != "Invalid UUIDv7 value." {
		t.Fatal("PHP error texts changed")
	}
	for _, ms := range []int64{0, MaxTimestampMs} {
		id, err := g.NewAt(ms)
		if err != nil || !Valid(id) {
			t.Fatalf("NewAt(%d) = %q, %v", ms, id, err)
		}
		if got, _ := TimestampMs(id); got != ms {
			t.Fatalf("TimestampMs(%q) = %d", id, got)
		}
	}
}

func TestGeneratorConcurrentMonotonic(t *testing.T) {
	g := NewGenerator(func() int64 { return vectorTs }, nil)
	const workers, per = 8, 500
	var mu sync.Mutex
	var all []string
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]string, 0, per)
			for i := 0; i < per; i++ {
				id, err := g.New()
				if err != nil {
					t.Error(err)
					return
				}
				local = append(local, id)
			}
			mu.Lock()
			all = append(all, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Strings(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("duplicate id %s", all[i])
		}
	}
	if len(all) != workers*per {
		t.Fatalf("got %d ids", len(all))
	}
}

func TestValid(t *testing.T) {
	cases := []struct {
		id   string
		want bool
	}{
		{"018bcfe5-6800-7234-9678-9abcdef011ff", true},
		{"018BCFE5-6800-7000-8000-AB0000000000", true},
		{"018bcfe5-6800-7000-B000-aB0000000000", true},
		{"018bcfe5-6800-7000-a000-000000000000", true},
		{"018bcfe5-6800-7234-9678-9abcdef011ff\n", false},
		{"018bcfe5-6800-7234-9678-9abcdef011f", false},
		{"018bcfe5-6800-7234-9678-9abcdef011fff", false},
		{"018bcfe5-6800-6234-9678-9abcdef011ff", false}, // version 6
		{"018bcfe5-6800-7234-c678-9abcdef011ff", false}, // variant c
		{"018bcfe5-6800-7234-7678-9abcdef011ff", false},
		{"018bcfe5_6800-7234-9678-9abcdef011ff", false},
		{"018bcfe5-6800-7234-9678-9abcdef011fg", false},
		{"{018bcfe5-6800-7234-9678-9abcdef011f}", false},
		{"urn:uuid:018bcfe5-6800-7234-9678-9abcdef0", false},
		{"018bcfe568007234967809abcdef011ff0000", false},
		{"", false},
		{strings.Repeat("a", 36), false},
		{"018bcfe5-6800-7234-9678-9abcdef011\xff\xff", false},
	}
	for _, c := range cases {
		if got := Valid(c.id); got != c.want {
			t.Errorf("Valid(%q) = %v, want %v", c.id, got, c.want)
		}
	}
}

func TestTimestampMs(t *testing.T) {
	got, err := TimestampMs("018BCFE5-6800-7000-8000-AB0000000000")
	if err != nil || got != vectorTs {
		t.Fatalf("got %d, %v", got, err)
	}
	if _, err := TimestampMs("018bcfe5-6800-6000-8000-000000000000"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
}

func TestBounds(t *testing.T) {
	cases := []struct {
		ms       int64
		min, max string
	}{
		{vectorTs, "018bcfe5-6800-7000-8000-000000000000", "018bcfe5-6800-7fff-bfff-ffffffffffff"},
		{0, "00000000-0000-7000-8000-000000000000", "00000000-0000-7fff-bfff-ffffffffffff"},
		// PHP does no range check (docs/format/docstore.md §3.3): garbage, but the same garbage.
		{-1, "ffffffff-ffff-ffff-7000-800000000000", "ffffffff-ffff-ffff-7fff-bfffffffffff"},
		{1 << 48, "10000000-0000-0700-0800-000000000000", "10000000-0000-07ff-fbff-ffffffffffff"},
	}
	for _, c := range cases {
		if got := MinForTimestampMs(c.ms); got != c.min {
			t.Errorf("Min(%d) = %s, want %s", c.ms, got, c.min)
		}
		if got := MaxForTimestampMs(c.ms); got != c.max {
			t.Errorf("Max(%d) = %s, want %s", c.ms, got, c.max)
		}
	}
}

var specRegexp = regexp.MustCompile(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func FuzzValid(f *testing.F) {
	for _, s := range []string{"018bcfe5-6800-7234-9678-9abcdef011ff", "018BCFE5-6800-7000-8000-AB0000000000", "", "x\n",
		"018bcfe5-6800-7234-9678-9abcdef011/\xff", "\xff/18bcfe5-6800-7234-9678-9abcdef011ff", "018bcfe5-6800-7234-9678-9abcdef0:1@`",
		"018bcfe5-6800-7234-b678-9abcdef011fG", "018bcfe5-6800-7234-9678-9abc\x80\x2f\x40\x60gG11"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Valid(s), specRegexp.MatchString(s); got != want {
			t.Fatalf("Valid(%q) = %v, regexp says %v", s, got, want)
		}
		if Valid(s) {
			if _, err := TimestampMs(s); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func BenchmarkValid(b *testing.B) {
	id := "018bcfe5-6800-7234-9678-9abcdef011ff"
	for i := 0; i < b.N; i++ {
		if !Valid(id) {
			b.Fatal("invalid")
		}
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no entropy in this test") }

// newGeneratorWithState returns a generator whose last call was at lastTs
// with the given entropy (the vector of docs/format/docstore.md §3.2).
func newGeneratorWithState(nowMs func() int64, random io.Reader, lastTs int64, entropy [10]byte) *Generator {
	g := NewGenerator(nowMs, random)
	g.lastTs = lastTs
	g.entropy = entropy
	g.hasEntropy = true
	return g
}

// TimestampMs validates id and returns the milliseconds of its first 12 hex
// digits (offsets 0-7 and 9-12, any case).
func TimestampMs(id string) (int64, error) {
	if !Valid(id) {
		return 0, ErrInvalid
	}
	var ts int64
	for i := 0; i < 13; i++ {
		if i == 8 {
			continue
		}
		ts = ts<<4 | int64(hexVal(id[i]))
	}
	return ts, nil
}
