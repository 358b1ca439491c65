package docindex

import (
	"math"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

func TestXXH128Vectors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "99aa06d3014798d86001c324468d497f"},
		{"a", "a96faf705af16834e6c632b61e964e1f"},
		{strings.Repeat("L", 97), "3258c2d4a4a640455c29704935d0942b"},
		{"s-70616765\x00s-78", "97e2ae8da5521ecbfcc18a3480d4b272"},
		{"i-1\x00s-70616765", "5eff209a6e2f9d881eed3b27cfe85875"},
	}
	for _, c := range cases {
		if got := xxh128Hex([]byte(c.in)); got != c.want {
			t.Errorf("xxh128(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestFieldKey(t *testing.T) {
	for in, want := range map[string]string{"kind": "6b696e64", "n": "6e", "a/b": "612f62", "\x00": "00", "": ""} {
		if got := FieldKey(in); got != want {
			t.Errorf("FieldKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKeyVectors checks the keys of docs/format/indexes.md §3 against PHP.
func TestKeyVectors(t *testing.T) {
	cases := []struct {
		v      phpjson.Value
		vk, rk string
	}{
		{int64(0), "i-0", "n-00000000000000000d000000"},
		{int64(42), "i-42", "n-00000000000000042d000000"},
		{int64(-1), "i-m1", "n-m0000000000000001d000000"},
		{int64(-42), "i-m42", "n-m0000000000000042d000000"},
		{int64(math.MaxInt64), "i-9223372036854775807", "n-9223372036854775807d000000"},
		{int64(math.MinInt64), "i-m9223372036854775808", "n-m9223372036854775808d000000"},
		{int64(100000000000000000), "i-100000000000000000", "n-100000000000000000d000000"},
		{0.0, "f-0", "n-00000000000000000d000000"},
		{math.Copysign(0, -1), "f-m0", "n-00000000000000000d000000"},
		{1.0, "f-1", "n-00000000000000001d000000"},
		{1.5, "f-1d5", "n-00000000000000001d500000"},
		{-1.5, "f-m1d5", "n-m0000000000000001d500000"},
		{0.1, "f-0d10000000000000001", "n-00000000000000000d100000"},
		{0.5, "f-0d5", "n-00000000000000000d500000"},
		{1e16, "f-10000000000000000", "n-10000000000000000d000000"},
		{1e17, "f-1d0Ep17", "n-100000000000000000d000000"},
		{1e20, "f-1d0Ep20", "n-100000000000000000000d000000"},
		{1e-5, "f-1d0000000000000001Em5", "n-00000000000000000d000010"},
		{5e-7, "f-4d9999999999999998Em7", "n-00000000000000000d000000"},
		{-2.5e-10, "f-m2d5000000000000002Em10", "n-m0000000000000000d000000"},
		{123456789.12345679, "f-123456789d12345679", "n-00000000123456789d123457"},
		{"", "s-", "s-"},
		{"a", "s-61", "s-61"},
		{"page", "s-70616765", "s-70616765"},
		{"é", "s-c3a9", "s-c3a9"},
		{true, "b-1", "b-1"},
		{false, "b-0", "b-0"},
		{nil, "n", "z-n"},
	}
	for _, c := range cases {
		if got := ValueKey(c.v); got != c.vk {
			t.Errorf("ValueKey(%#v) = %q, want %q", c.v, got, c.vk)
		}
		if got := RangeKey(c.v); got != c.rk {
			t.Errorf("RangeKey(%#v) = %q, want %q", c.v, got, c.rk)
		}
	}
}

func TestLongStringKeys(t *testing.T) {
	s96 := strings.Repeat("L", 96)
	if got := ValueKey(s96); got != "s-"+strings.Repeat("4c", 96) {
		t.Errorf("96-byte string must be hex, got %q", got)
	}
	s97 := strings.Repeat("L", 97)
	if got := ValueKey(s97); got != "s-3258c2d4a4a640455c29704935d0942b" {
		t.Errorf("97-byte string VK = %q", got)
	}
	if got := RangeKey(s97); got != "s-"+strings.Repeat("4c", 97) {
		t.Errorf("RK never hashes, got %q", got)
	}
}

func TestArrayKeys(t *testing.T) {
	arr := phpjson.NewList(int64(1))
	vk := ValueKey(arr)
	if !strings.HasPrefix(vk, "z-") || len(vk) != 34 {
		t.Errorf("array VK = %q", vk)
	}
	if rk := RangeKey(arr); rk != "z-"+vk {
		t.Errorf("array RK = %q", rk)
	}
	if want := "z-" + xxh128Hex([]byte("a:1:{i:0;i:1;}")); vk != want {
		t.Errorf("array VK = %q, want %q (xxh128 of PHP serialize)", vk, want)
	}
	if indexable(arr) {
		t.Error("arrays are not indexable")
	}
}

func TestCompoundKey(t *testing.T) {
	if got := CompoundKey("page", "x"); got != "c-97e2ae8da5521ecbfcc18a3480d4b272" {
		t.Errorf("CompoundKey(page, x) = %q", got)
	}
	if got := CompoundKey(int64(1), "page"); got != "c-5eff209a6e2f9d881eed3b27cfe85875" {
		t.Errorf("CompoundKey(1, page) = %q", got)
	}
}

// TestRangeKeyOrder checks the documented order properties of RK.
func TestRangeKeyOrder(t *testing.T) {
	ordered := []phpjson.Value{false, true, int64(0), 0.5, int64(1), 2.5, int64(99999999999999999), int64(-1), int64(-2), "", "a", "ab", "b", nil}
	for i := 1; i < len(ordered); i++ {
		a, b := RangeKey(ordered[i-1]), RangeKey(ordered[i])
		if !(a < b) {
			t.Errorf("RK(%#v)=%q should sort before RK(%#v)=%q", ordered[i-1], a, ordered[i], b)
		}
	}
	if RangeKey(int64(1)) != RangeKey(1.0) || ValueKey(int64(1)) == ValueKey(1.0) {
		t.Error("int 1 and float 1.0 share an RK but not a VK")
	}
}

func TestNonFiniteKeys(t *testing.T) {
	cases := []struct {
		f      float64
		vk, rk string
	}{
		{math.Inf(1), "f-INF", "n-INF"},
		{math.Inf(-1), "f-INF", "n-mNF"}, // PHP 8.2's sprintf (oracle-checked)
		{math.NaN(), "f-NaN", "n-NaN"},
	}
	for _, c := range cases {
		if got := ValueKey(c.f); got != c.vk {
			t.Errorf("ValueKey(%v) = %q, want %q", c.f, got, c.vk)
		}
		if got := RangeKey(c.f); got != c.rk {
			t.Errorf("RangeKey(%v) = %q, want %q", c.f, got, c.rk)
		}
	}
}

// xxh128Hex is PHP hash('xxh128'): XXH3-128, seed 0, high 64 bits first.
func xxh128Hex(b []byte) string { return string(appendXXH128(nil, string(b))) }
