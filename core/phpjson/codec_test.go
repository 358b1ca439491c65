package phpjson

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// roundTrip decodes in and re-encodes it, as PHP json_encode(json_decode($in, true)).
func roundTrip(t *testing.T, in string) (string, error) {
	t.Helper()
	v, err := Decode([]byte(in))
	if err != nil {
		return "", err
	}
	out, err := Encode(v)
	return string(out), err
}

func TestDecodeEncodeVectors(t *testing.T) {
	tests := []struct{ in, want string }{
		// docstore Appendix A
		{`9223372036854775807`, `9223372036854775807`},
		{`9223372036854775808`, `9.223372036854776e+18`},
		{`-9223372036854775808`, `-9223372036854775808`},
		{`-9223372036854775809`, `-9.223372036854776e+18`},
		{`18446744073709551616`, `1.8446744073709552e+19`},
		{`12345678901234567890`, `1.2345678901234567e+19`},
		{`99999999999999999999`, `1.0e+20`},
		{`-0`, `0`},
		{`-0.0`, `-0.0`},
		{`0e0`, `0.0`},
		{`100e-2`, `1.0`},
		{`1E2`, `100.0`},
		{`1e2`, `100.0`},
		{`0.10`, `0.1`},
		{`1.50`, `1.5`},
		{`5E-324`, `5.0e-324`},
		{`1e-400`, `0.0`},
		{`{"a":{}}`, `{"a":[]}`},
		{`{"0":1,"1":2}`, `[1,2]`},
		{`{"1":1,"0":2}`, `{"1":1,"0":2}`},
		{`{"0":1,"2":2}`, `{"0":1,"2":2}`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{`{"":1}`, `{"":1}`},
		{`{"01":"x","-5":"y","1.5":"z"," 1":"w","-0":"v","+1":"u"}`, `{"01":"x","-5":"y","1.5":"z"," 1":"w","-0":"v","+1":"u"}`},
		{`{"9223372036854775807":"max","9223372036854775808":"over"}`, `{"9223372036854775807":"max","9223372036854775808":"over"}`},
		{`{"10":"a","9":"b"}`, `{"10":"a","9":"b"}`},
		{`{}`, `[]`},
		{`[]`, `[]`},
		{` [ 1 , 2 ] `, `[1,2]`},
		{"\r\n\t{\"a\" : true}\n", `{"a":true}`},
		{`[null,true,false]`, `[null,true,false]`},
		{`"\u00e9\/\ud83d\ude00\u0041\u2028"`, "\"é/😀A\\u2028\""},
		{`"\u0000"`, `"\u0000"`},
		{`"\b\f\n\r\t\"\\"`, `"\b\f\n\r\t\"\\"`},
		{`{"\u0000a":1}`, `{"\u0000a":1}`},
		{`"\uDBFF\uDFFF"`, "\"\U0010FFFF\""},
		{`"\u20AC"`, `"€"`},
		{`[1,[2,[3,{"d":null}]]]`, `[1,[2,[3,{"d":null}]]]`},
		{`{"a":{"b":1},"c":{"d":{"e":[]}},"f":2}`, `{"a":{"b":1},"c":{"d":{"e":[]}},"f":2}`},
	}
	for _, tt := range tests {
		got, err := roundTrip(t, tt.in)
		if err != nil || got != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{``, ErrSyntax},
		{` `, ErrSyntax},
		{`{`, ErrSyntax},
		{`{ broken`, ErrSyntax},
		{`[1,]`, ErrSyntax},
		{`{"a":1,}`, ErrSyntax},
		{`{"a":1,]`, ErrSyntax},
		{`[1}`, ErrStateMismatch},
		{`[}`, ErrStateMismatch},
		{`{]`, ErrStateMismatch},
		{`{"a":1]`, ErrStateMismatch},
		{`{"a"]`, ErrSyntax},
		{`{"a":}`, ErrSyntax},
		{`01`, ErrSyntax},
		{`-`, ErrSyntax},
		{`1.`, ErrSyntax},
		{`1.e5`, ErrSyntax},
		{`.5`, ErrSyntax},
		{`+1`, ErrSyntax},
		{`1e`, ErrSyntax},
		{`True`, ErrSyntax},
		{`nul`, ErrSyntax},
		{`nulll`, ErrSyntax},
		{`'a'`, ErrSyntax},
		{`{a:1}`, ErrSyntax},
		{`[1 2]`, ErrSyntax},
		{`1 2`, ErrSyntax},
		{`"abc`, ErrCtrlChar},
		{`"a` + "\x01" + `"`, ErrCtrlChar},
		{"\"a\x00\"", ErrCtrlChar},
		{"{\"a\":1}\x00", ErrCtrlChar},
		{"\x00{}", ErrCtrlChar},
		{"\x0b{}", ErrCtrlChar},
		{"\x0c{}", ErrCtrlChar},
		{"\"\xff\"", ErrUTF8},
		{"\"\xc3\"", ErrUTF8},
		{"\"\xed\xa0\x80\"", ErrUTF8}, // encoded surrogate
		{"\"\xc0\xaf\"", ErrUTF8},     // overlong
		{"\"\xf4\x90\x80\x80\"", ErrUTF8},
		{"\xff", ErrUTF8},
		{"[1\xff]", ErrUTF8},
		{"[1 \"\xff\"]", ErrUTF8},
		{"\xef\xbb\xbf{}", ErrSyntax}, // BOM
		{`"\ud83d"`, ErrUTF16},
		{`"\ude00"`, ErrUTF16},
		{`"\ud83d\u0041"`, ErrUTF16},
		{`"\ud83dx"`, ErrUTF16},
		{`"\u12"`, ErrSyntax},
		{`"\u12G4"`, ErrSyntax},
		{`"\x"`, ErrSyntax},
		{`"\'"`, ErrSyntax},
		{`"\`, ErrSyntax},
		{`{"a":1} x`, ErrSyntax},
		{`[1,"\ud800"`, ErrUTF16},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.in))
		if err != tt.want {
			t.Errorf("%q: got %v, want %v", tt.in, err, tt.want)
		}
	}
}

func TestDecodeTypes(t *testing.T) {
	v, err := Decode([]byte(`{"i":1,"f":1.0,"nz":-0.0,"z":-0,"s":"x","n":null,"b":false,"a":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	a := v.(*Array)
	check := func(name string, want Value) {
		t.Helper()
		got, ok := a.Lookup(name)
		if !ok || !Identical(got, want) {
			t.Errorf("%s: got %#v, want %#v", name, got, want)
		}
	}
	check("i", int64(1))
	check("f", 1.0)
	check("z", int64(0))
	check("s", "x")
	check("n", nil)
	check("b", false)
	check("a", NewList(int64(1)))
	nz, _ := a.Lookup("nz")
	if f, ok := nz.(float64); !ok || f != 0 || !math.Signbit(f) {
		t.Errorf("nz: got %#v, want -0.0", nz)
	}
	if v, _ := Decode([]byte(`1e400`)); v != math.Inf(1) {
		t.Errorf("1e400: got %v", v)
	}
	if v, _ := Decode([]byte(`-1e400`)); v != math.Inf(-1) {
		t.Errorf("-1e400: got %v", v)
	}
	if _, err := Encode(math.Inf(1)); err != ErrInfNaN {
		t.Errorf("encode inf: %v", err)
	}
}

// nested returns n nested arrays around inner.
func nested(n int, inner string) string {
	return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
}

func TestDecodeDepth(t *testing.T) {
	tests := []struct {
		levels, max int
		want        error
	}{
		{511, 512, nil},
		{512, 512, ErrDepth},
		{1, 2, nil},
		{2, 2, ErrDepth},
		{1, 1, ErrDepth},
		{100000, 0, nil},
		{100000, 512, ErrDepth},
	}
	for _, tt := range tests {
		_, err := DecodeDepth([]byte(nested(tt.levels, "1")), tt.max)
		if err != tt.want {
			t.Errorf("%d levels, max %d: got %v, want %v", tt.levels, tt.max, err, tt.want)
		}
	}
	if _, err := DecodeDepth([]byte("1"), 1); err != nil {
		t.Errorf("scalar at depth 1: %v", err)
	}
	// The record envelope takes one level: data nested 510 levels reads,
	// 511 does not (docstore 3.4 quirk).
	rec := func(n int) string { return `{"id":"x","data":` + nested(n, "") + `}` }
	if _, err := Decode([]byte(rec(510))); err != nil {
		t.Errorf("data 510: %v", err)
	}
	if _, err := Decode([]byte(rec(511))); err != ErrDepth {
		t.Errorf("data 511: %v", err)
	}
	// Depth is checked when '[' is read, before later bytes are scanned.
	if _, err := Decode([]byte(nested(600, "\xff"))); err != ErrDepth {
		t.Errorf("depth before utf8: %v", err)
	}
}

func TestEncodeDepth(t *testing.T) {
	deep := func(n int, inner Value) Value {
		v := inner
		for i := 0; i < n; i++ {
			v = NewList(v)
		}
		return v
	}
	if _, err := Encode(deep(512, int64(1))); err != nil {
		t.Errorf("512: %v", err)
	}
	if _, err := Encode(deep(511, NewArray(0))); err != nil {
		t.Errorf("511+empty: %v", err)
	}
	if _, err := Encode(deep(512, NewArray(0))); err != ErrDepth {
		t.Errorf("512+empty: %v", err)
	}
	if _, err := Encode(deep(513, int64(1))); err != ErrDepth {
		t.Errorf("513: %v", err)
	}
	if _, err := Encode(deep(100000, int64(1))); err != ErrDepth {
		t.Errorf("100000: %v", err)
	}
	// Inside an over-deep array, invalid UTF-8 met before the first close wins.
	if _, err := Encode(deep(600, "\xff")); err != ErrUTF8 {
		t.Errorf("deep utf8: %v", err)
	}
	if _, err := Encode(deep(600, NewList(NewArray(0), "\xff"))); err != ErrDepth {
		t.Errorf("deep close before utf8: %v", err)
	}
	// NaN does not stop encoding; a later hard error replaces it.
	if _, err := Encode(NewList(math.NaN(), "\xff")); err != ErrUTF8 {
		t.Errorf("nan then utf8: %v", err)
	}
	if _, err := Encode(NewList("\xff", math.NaN())); err != ErrUTF8 {
		t.Errorf("utf8 then nan: %v", err)
	}
	if _, err := Encode(NewList(math.NaN(), deep(513, nil))); err != ErrDepth {
		t.Errorf("nan then depth: %v", err)
	}
	if _, err := Encode(NewList(math.NaN(), int64(1))); err != ErrInfNaN {
		t.Errorf("nan: %v", err)
	}
	a := NewArray(1)
	a.SetString("\xff", int64(1))
	if _, err := Encode(a); err != ErrUTF8 {
		t.Errorf("bad key: %v", err)
	}
	if _, err := Encode(int(1)); !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("int: %v", err)
	}
}
