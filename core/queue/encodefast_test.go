package queue

import (
	"bytes"
	"testing"

	"storhfs/core/phpjson"
)

// checkFastEncoding fails when appendPayloadFast and the reference
// (appendPayloadJSON) differ: in the bytes, or in whether they fail.
func checkFastEncoding(t *testing.T, p *phpjson.Array) {
	t.Helper()
	want, werr := appendPayloadJSON([]byte("x"), p)
	got, err := appendPayloadFast([]byte("x"), p)
	if (err == nil) != (werr == nil) {
		t.Fatalf("fast fails with %v, reference with %v", err, werr)
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Fatalf("fast %.200q\nwant %.200q", got, want)
	}
}

func TestAppendPayloadFast(t *testing.T) {
	for _, p := range hostilePayloads() {
		checkFastEncoding(t, p)
	}
	intKeys := phpjson.NewArray(3)
	intKeys.Set(phpjson.IntKey(5), "five")
	intKeys.Set(phpjson.IntKey(-1), phpjson.NewList())
	intKeys.SetString("k\"ey\u2028", "\x7f/")
	checkFastEncoding(t, intKeys)
	checkFastEncoding(t, obj("nil child", (*phpjson.Array)(nil), "f", 1e25, "g", 0.1, "h", -2.0))
	checkFastEncoding(t, phpjson.NewList(int64(0), int64(9), int64(10), int64(99), int64(100),
		int64(99999), int64(100000), int64(-1), int64(-99999), int64(1)<<32)) // appendSmallUint's edges
	badKey := phpjson.NewArray(1)
	badKey.SetString("\xc3", int64(1))
	for _, bad := range []*phpjson.Array{
		nested(maxPayloadDepth, phpjson.NewArray(0)), // one level too deep
		nested(maxPayloadDepth, nil),                 // a nil array is a level too
		obj("s", "ok", "t", "\xe2\x82"),
		badKey,
		obj("f", nanValue()),
		obj("a", phpjson.NewList(obj("f", 1/zero()))),
		obj("i", 5), // an int, not an int64: outside the model
		obj("s", "\xed\xa0\x80"),
		phpjson.NewList("\xff"),
	} {
		checkFastEncoding(t, bad)
		if _, err := appendPayloadFast(nil, bad); err == nil {
			t.Fatalf("fast encoder accepts %v", bad)
		}
	}
	checkFastEncoding(t, nested(maxPayloadDepth-1, phpjson.NewArray(0))) // deepest allowed
	checkFastEncoding(t, nested(maxPayloadDepth-1, nil))
}

// nested wraps inner in levels arrays {"d":...}.
func nested(levels int, inner *phpjson.Array) *phpjson.Array {
	for i := 0; i < levels; i++ {
		outer := phpjson.NewArray(1)
		outer.SetString("d", inner)
		inner = outer
	}
	return inner
}

func zero() float64 { return 0 }

func FuzzAppendPayloadFast(f *testing.F) {
	f.Add([]byte(`{"task":"render","page":1,"url":"https://example.test/p/1"}`))
	f.Add([]byte(`{"s":"\u0000\u001f\"\\/\u2028é😀\u007f","n":-9223372036854775808,"f":1.0e300,"z":-0.0}`))
	f.Add([]byte(`{"a":[[[[[[{"b":{}}]]]]]],"0":1,"1":[1,2,{"3":4}]}`))
	f.Add([]byte(`[1,"2",3.5,null,true,false,[]]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := phpjson.Decode(raw)
		if err != nil {
			return
		}
		if p, ok := v.(*phpjson.Array); ok {
			checkFastEncoding(t, p)
		}
	})
}

func FuzzPlainString(f *testing.F) {
	for _, s := range []string{"", "plain ascii text ~\x7f/", "tab\there", "quote\"x", "back\\slash", "é", "12345678\x1f", "\x00\x00\x00\x00\x00\x00\x00\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, werr := phpjson.AppendString(nil, s)
		got, gerr := appendStringFast(nil, s)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("appendStringFast(%q) = %q, %v; want %q, %v", s, got, gerr, want, werr)
		}
		for i := 0; i+8 <= len(s); i++ {
			if plainWord(load8(s, i)) != plainPrefix(s[i:i+8]) {
				t.Fatalf("plainWord(%q) = %v", s[i:i+8], !plainPrefix(s[i:i+8]))
			}
		}
	})
}

func plainPrefix(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
