package docindex

import (
	"math"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// fuzzValue builds a PHP value from fuzz inputs.
func fuzzValue(kind uint8, i int64, f float64, s string) phpjson.Value {
	switch kind % 6 {
	case 0:
		return i
	case 1:
		return f
	case 2:
		return s
	case 3:
		return i%2 == 0
	case 4:
		return nil
	default:
		return phpjson.NewList(i, s)
	}
}

// validFileComponent: usable as "<key>.jsonc" in one directory.
func validFileComponent(k string) bool {
	return k != "" && len(k)+len(".jsonc") <= 255 && !strings.ContainsAny(k, "/\x00") && k != "." && k != ".."
}

func FuzzValueKey(f *testing.F) {
	f.Add(uint8(0), int64(-42), 0.0, "")
	f.Add(uint8(1), int64(0), math.Copysign(0, -1), "")
	f.Add(uint8(1), int64(0), 1e17, "")
	f.Add(uint8(1), int64(0), 5e-324, "")
	f.Add(uint8(1), int64(0), -1.7976931348623157e308, "")
	f.Add(uint8(2), int64(0), 0.0, "page")
	f.Add(uint8(2), int64(0), 0.0, strings.Repeat("é", 60))
	f.Add(uint8(2), int64(0), 0.0, "a/b\x00..")
	f.Add(uint8(5), int64(7), 0.0, "x")
	f.Fuzz(func(t *testing.T, kind uint8, i int64, fl float64, s string) {
		v := fuzzValue(kind, i, fl, s)
		vk := ValueKey(v)
		if !validFileComponent(vk) {
			t.Fatalf("VK(%#v) = %q is not a valid file name", v, vk)
		}
		_ = RangeKey(v)
		ck := CompoundKey(v, v)
		if !validFileComponent(ck) || len(ck) != 34 {
			t.Fatalf("CK = %q", ck)
		}
		if kind%6 == 2 && len(s) <= maxPlainStringKey && vk != "s-"+FieldKey(s) {
			t.Fatalf("short string VK = %q", vk)
		}
	})
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func FuzzRangeKey(f *testing.F) {
	f.Add(int64(0), int64(1), "a", "ab", 0.5, 0.25)
	f.Add(int64(99999999999999999), int64(10), "", "\xff", 1e16, 1e-7)
	f.Add(int64(-5), int64(1e17), "b", "a", -0.0, 0.0)
	f.Fuzz(func(t *testing.T, a, b int64, s1, s2 string, f1, f2 float64) {
		// Never panics on any input, including out-of-range ones.
		_, _ = RangeKey(a), RangeKey(f1)
		// Non-negative ints below 1e17 sort numerically.
		const limit = int64(1e17)
		if a >= 0 && b >= 0 {
			a, b = a%limit, b%limit
			want := sign(int(a - b)) // no overflow below 1e17
			if got := sign(strings.Compare(RangeKey(a), RangeKey(b))); got != want {
				t.Fatalf("RK order of %d, %d: %d, want %d", a, b, got, want)
			}
		}
		// Strings sort bytewise.
		if got, want := sign(strings.Compare(RangeKey(s1), RangeKey(s2))), sign(strings.Compare(s1, s2)); got != want {
			t.Fatalf("RK order of %q, %q: %d, want %d", s1, s2, got, want)
		}
		// Non-negative floats below 1e17 never sort against their order.
		if f1 >= 0 && f2 >= 0 && f1 < 1e17 && f2 < 1e17 && f1 < f2 {
			if strings.Compare(RangeKey(f1), RangeKey(f2)) > 0 {
				t.Fatalf("RK(%v) > RK(%v)", f1, f2)
			}
		}
		// Every number sorts before every string, which sort before null.
		if !(RangeKey(a) < RangeKey(s1) && RangeKey(s1) < RangeKey(nil)) {
			t.Fatalf("type order broken for %d, %q", a, s1)
		}
	})
}
