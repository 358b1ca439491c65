package phpjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestAppendStringASCII(t *testing.T) {
	for c := 0; c < 0x80; c++ {
		var want string
		switch c {
		case '"':
			want = `\"`
		case '\\':
			want = `\\`
		case '\b':
			want = `\b`
		case '\f':
			want = `\f`
		case '\n':
			want = `\n`
		case '\r':
			want = `\r`
		case '\t':
			want = `\t`
		default:
			if c < 0x20 {
				want = fmt.Sprintf(`\u%04x`, c) // lowercase hex
			} else {
				want = string(rune(c)) // includes "/", DEL, <>&'
			}
		}
		got, err := AppendString(nil, "a"+string(rune(c))+"b")
		if err != nil || string(got) != `"a`+want+`b"` {
			t.Errorf("byte %#02x: got %s, %v; want %q", c, got, err, `"a`+want+`b"`)
		}
	}
}

func TestAppendStringUnicode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"\u2028", `"\u2028"`},
		{"\u2029", `"\u2029"`},
		{"a\u2028b\u2029c", `"a\u2028b\u2029c"`},
		{"\u2027\u202a", "\"\u2027\u202a\""},
		{"Héllo/€ 日本 😀 \U0010FFFF \uFFFD", "\"Héllo/€ 日本 😀 \U0010FFFF \uFFFD\""},
		{"<a&b>'\x7f", "\"<a&b>'\x7f\""},
		{"\x00\x1f", `"\u0000\u001f"`},
	}
	for _, tt := range tests {
		got, err := AppendString(nil, tt.in)
		if err != nil || string(got) != tt.want {
			t.Errorf("%q: got %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"\xff", "a\xc3", "\xc3(", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80", "\xe2\x80", "ok\x80"} {
		got, err := AppendString([]byte("keep"), bad)
		if err != ErrUTF8 || string(got) != "keep" {
			t.Errorf("%q: got %q, %v; want ErrUTF8 and dst unchanged", bad, got, err)
		}
		if _, err := Encode(NewList(bad)); err != ErrUTF8 {
			t.Errorf("Encode(%q): %v", bad, err)
		}
	}
}

// TestAppendStringMatchesGo compares with encoding/json without HTML
// escaping, which writes the same bytes for valid UTF-8 (segmentedlog 2.4).
func TestAppendStringMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune{'a', '"', '\\', '/', '\n', 0, 0x1f, 0x7f, 'é', '€', 0x2028, 0x2029, 0x1F600, 0xFFFD, '<', '&'}
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for n := r.IntN(12); n > 0; n-- {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		got, err := AppendString(nil, s)
		if err != nil || string(got) != strings.TrimSuffix(want.String(), "\n") {
			t.Fatalf("%q: got %s, want %s", s, got, want.String())
		}
	}
}

func TestEncodeShapes(t *testing.T) {
	obj := NewArray(0)
	obj.SetString("b", int64(1))
	obj.SetString("a", NewList())
	obj.SetString("5", "five")
	obj.Set(IntKey(-3), nil)
	gap := NewArray(0)
	gap.Set(IntKey(0), "x")
	gap.Set(IntKey(2), "y")
	rev := NewArray(0)
	rev.Set(IntKey(1), "a")
	rev.Set(IntKey(0), "b")
	tests := []struct {
		v    Value
		want string
	}{
		{nil, `null`},
		{true, `true`},
		{false, `false`},
		{int64(-5), `-5`},
		{int64(-9223372036854775808), `-9223372036854775808`},
		{"x", `"x"`},
		{NewArray(0), `[]`},
		{(*Array)(nil), `[]`},
		{NewList("a", "b"), `["a","b"]`},
		{obj, `{"b":1,"a":[],"5":"five","-3":null}`},
		{gap, `{"0":"x","2":"y"}`},
		{rev, `{"1":"a","0":"b"}`},
	}
	for _, tt := range tests {
		got, err := Encode(tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("Encode(%#v) = %s, %v; want %s", tt.v, got, err, tt.want)
		}
	}
	// AppendEncode leaves dst untouched on error.
	dst := []byte("prefix")
	if out, err := AppendEncode(dst, NewList("ok", "\xff")); err != ErrUTF8 || string(out) != "prefix" {
		t.Errorf("AppendEncode on error: %q, %v", out, err)
	}
}

func TestEncodePretty(t *testing.T) {
	inner := NewArray(0)
	inner.SetString("field", "kind")
	inner.SetString("unique", false)
	inner.SetString("f", 1.0)
	root := NewArray(0)
	root.SetString("fields", NewList(inner, NewList(), NewList(int64(1), int64(2))))
	root.SetString("e", NewArray(0))
	root.SetString("s", "a/é\u2028")
	want := `{
    "fields": [
        {
            "field": "kind",
            "unique": false,
            "f": 1.0
        },
        [],
        [
            1,
            2
        ]
    ],
    "e": [],
    "s": "a/é\u2028"
}`
	got, err := EncodePretty(root)
	if err != nil || string(got) != want {
		t.Errorf("got %s, %v\nwant %s", got, err, want)
	}
	for _, tt := range []struct {
		v    Value
		want string
	}{{int64(1), "1"}, {NewArray(0), "[]"}, {NewList("x"), "[\n    \"x\"\n]"}} {
		if got, _ := EncodePretty(tt.v); string(got) != tt.want {
			t.Errorf("EncodePretty(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	if _, err := EncodePretty(NewList("\xff")); err != ErrUTF8 {
		t.Errorf("pretty utf8: %v", err)
	}
}

// TestCompareText checks the compare() rule of docstore 8.6: sorting by the
// pretty text of {"value": v} gives PHP's cross-type order.
func TestCompareText(t *testing.T) {
	text := func(v Value) string {
		w := NewArray(1)
		w.SetString("value", v)
		out, err := EncodePretty(w)
		if err != nil {
			t.Fatal(err)
		}
		return string(out) + "\n"
	}
	obj := NewArray(1)
	obj.SetString("a", int64(1))
	// PHP order: "", "zzz", -1, -0.5, 0, 5.5, [1], [], false, null, true, {"a":1}
	order := []Value{"", "zzz", int64(-1), -0.5, int64(0), 5.5, NewList(int64(1)), NewArray(0), false, nil, true, obj}
	for i := 0; i+1 < len(order); i++ {
		a, b := text(order[i]), text(order[i+1])
		// only mixed-type neighbours are ordered by text
		if typeClass(order[i]) != typeClass(order[i+1]) && a >= b {
			t.Errorf("text(%v) >= text(%v): %q vs %q", order[i], order[i+1], a, b)
		}
	}
}

// typeClass is the PHP type of v, ints and floats being one class (numbers).
func typeClass(v Value) string {
	switch v.(type) {
	case int64, float64:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
