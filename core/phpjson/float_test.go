package phpjson

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// Runtime sums (Go constant arithmetic would be exact).
var tenth, fifth, seventh = 0.1, 0.2, 0.7

func TestFormatFloat(t *testing.T) {
	// docstore Appendix A, segmentedlog 2.4 and doc/encoding results.
	tests := []struct {
		f    float64
		want string
	}{
		{0.0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1.0, "1.0"},
		{0.1, "0.1"},
		{tenth + fifth, "0.30000000000000004"},
		{100.0, "100.0"},
		{1e15, "1000000000000000.0"},
		{1e16, "10000000000000000.0"},
		{3e16, "30000000000000000.0"},
		{12345678901234567.0, "12345678901234568.0"},
		{99900000000000000.0, "99900000000000000.0"},
		{1e17, "1.0e+17"},
		{123456789012345678.0, "1.2345678901234568e+17"},
		{1e20, "1.0e+20"},
		{1e25, "1.0e+25"},
		{1.5e300, "1.5e+300"},
		{1.7976931348623157e308, "1.7976931348623157e+308"},
		{0.0001, "0.0001"},
		{0.00012, "0.00012"},
		{1e-5, "1.0e-5"},
		{2.5e-7, "2.5e-7"},
		{1.5e-7, "1.5e-7"},
		{-1e-10, "-1.0e-10"},
		{5e-324, "5.0e-324"},
		{2.5, "2.5"},
		{0.5, "0.5"},
		{-1.5, "-1.5"},
		{1.2345678901234567e19, "1.2345678901234567e+19"},
	}
	for _, tt := range tests {
		if got := FormatFloat(tt.f); got != tt.want {
			t.Errorf("FormatFloat(%v) = %q, want %q", tt.f, got, tt.want)
		}
		out, err := Encode(tt.f)
		if err != nil || string(out) != tt.want {
			t.Errorf("Encode(%v) = %q, %v", tt.f, out, err)
		}
	}
}

// vkFloat and rkNumber are the docstore 7.2 value/range key float parts.
func vkFloat(f float64) string {
	return "f-" + strings.NewReplacer("-", "m", ".", "d", "+", "p").Replace(G17(f))
}

func rkFloat(f float64) string {
	return "n-" + strings.NewReplacer("-", "m", ".", "d").Replace(F24(f))
}

func TestG17F24(t *testing.T) {
	// docstore 7.2 VK/RK table (float rows) and Appendix A.
	tests := []struct {
		f      float64
		vk, rk string
	}{
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
		// int RK rows go through float(v) for negatives
		{-1, "f-m1", "n-m0000000000000001d000000"},
		{-42, "f-m42", "n-m0000000000000042d000000"},
		{-9223372036854775808, "f-m9d2233720368547758Ep18", "n-m9223372036854775808d000000"},
	}
	for _, tt := range tests {
		if got := vkFloat(tt.f); got != tt.vk {
			t.Errorf("VK(%v) = %q, want %q", tt.f, got, tt.vk)
		}
		if got := rkFloat(tt.f); got != tt.rk {
			t.Errorf("RK(%v) = %q, want %q", tt.f, got, tt.rk)
		}
	}
	more := []struct {
		f        float64
		g17, f24 string
	}{
		{0.0078125, "0.0078125", "00000000000000000.007812"},
		{0.0234375, "0.0234375", "00000000000000000.023438"},
		{1.0000005, "1.0000005000000001", "00000000000000001.000001"},
		{123.4567895, "123.4567895", "00000000000000123.456789"},
		{tenth + seventh, "0.79999999999999993", "00000000000000000.800000"},
		{-0.0078125, "-0.0078125", "-0000000000000000.007812"},
		{1e22, "1.0E+22", "10000000000000000000000.000000"},
	}
	for _, tt := range more {
		if got := G17(tt.f); got != tt.g17 {
			t.Errorf("G17(%v) = %q, want %q", tt.f, got, tt.g17)
		}
		if got := F24(tt.f); got != tt.f24 {
			t.Errorf("F24(%v) = %q, want %q", tt.f, got, tt.f24)
		}
	}
}

// TestFormatFloatReference compares with a reference implementation of
// docs/format/phpjson.md §2.3 (transcribed below) on many doubles.
func TestFormatFloatReference(t *testing.T) {
	var x uint64 = 88172645463325252
	for i := 0; i < 20000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		f := math.Float64frombits(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		if i%2 == 0 { // also sample human-scale magnitudes
			f = float64(int64(x%2000000)-1000000) * math.Pow(10, float64(int(x>>40)%40-20))
		}
		if got, want := FormatFloat(f), refJSONFloat(f); got != want {
			t.Fatalf("FormatFloat(%v) = %q, reference %q", f, got, want)
		}
		if got, want := G17(f), refG17(f); got != want {
			t.Fatalf("G17(%v) = %q, reference %q", f, got, want)
		}
	}
}

func refLayout(neg bool, digits string, decpt int, expChar byte) string {
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if decpt < -3 || decpt > 17 {
		e := decpt - 1
		b.WriteByte(digits[0])
		b.WriteByte('.')
		if len(digits) > 1 {
			b.WriteString(digits[1:])
		} else {
			b.WriteByte('0')
		}
		b.WriteByte(expChar)
		if e < 0 {
			b.WriteByte('-')
			e = -e
		} else {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(e))
		return b.String()
	}
	if decpt < 0 {
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -decpt))
		b.WriteString(digits)
		return b.String()
	}
	for i := 0; i < decpt; i++ {
		if i < len(digits) {
			b.WriteByte(digits[i])
		} else {
			b.WriteByte('0')
		}
	}
	if len(digits) > decpt {
		if decpt == 0 {
			b.WriteByte('0')
		}
		b.WriteByte('.')
		b.WriteString(digits[decpt:])
	}
	return b.String()
}

func refSplit(f float64, prec int) (bool, string, int) {
	neg := math.Signbit(f)
	a := math.Abs(f)
	if a == 0 {
		return neg, "0", 1
	}
	s := strconv.FormatFloat(a, 'e', prec, 64)
	mant, exp, _ := strings.Cut(s, "e")
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	if digits == "" {
		digits = "0"
	}
	e, _ := strconv.Atoi(exp)
	return neg, digits, e + 1
}

func refJSONFloat(f float64) string {
	neg, d, p := refSplit(f, -1)
	s := refLayout(neg, d, p, 'e')
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func refG17(f float64) string {
	neg, d, p := refSplit(f, 16)
	return refLayout(neg, d, p, 'E')
}
