package phpjson

import "testing"

func TestPlainString(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"", true},
		{"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", true},
		{"abcdefg\x7f", true},
		{"abcdefgh\"", false},
		{"abcdefgh\\", false},
		{"abc\x1fdefgh", false},
		{"abcdefghé", false},
		{"\x80", false},
	} {
		if got := PlainString(c.s); got != c.want {
			t.Errorf("PlainString(%q) = %v, want %v", c.s, got, c.want)
		}
		enc, err := AppendString(nil, c.s)
		if plain := err == nil && string(enc) == `"`+c.s+`"`; c.want && !plain {
			t.Errorf("PlainString(%q) but J = %q", c.s, enc)
		}
	}
}
