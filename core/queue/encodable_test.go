package queue

import (
	"math"
	"testing"
	"unicode/utf8"

	"storhfs/core/phpjson"
)

// checkEncodable fails when encodablePayload says yes but the encoder fails
// (unsound: a streamed batch would then stop half-written).
func checkEncodable(t *testing.T, p *phpjson.Array) {
	t.Helper()
	_, err := appendPayloadJSON(nil, p)
	if encodablePayload(p) && err != nil {
		t.Fatalf("encodablePayload says yes, encoder says %v", err)
	}
}

// tooDeepPayload nests maxPayloadDepth arrays: one level more than a
// payload may have.
func tooDeepPayload() *phpjson.Array {
	p := phpjson.NewArray(0)
	for i := 0; i < maxPayloadDepth; i++ {
		outer := phpjson.NewArray(1)
		outer.SetString("d", p)
		p = outer
	}
	return p
}

func TestEncodablePayload(t *testing.T) {
	for _, p := range append(hostilePayloads(), obj("nil child", (*phpjson.Array)(nil))) {
		checkEncodable(t, p)
		if !encodablePayload(p) {
			t.Errorf("encodable payload rejected: %v", p)
		}
	}
	tooDeep := tooDeepPayload()
	badKey := phpjson.NewArray(1)
	badKey.SetString("\xc3", int64(1))
	for name, p := range map[string]*phpjson.Array{
		"too deep":      tooDeep,
		"bad utf8":      obj("s", "ok", "t", "\xe2\x82"),
		"bad key":       badKey,
		"nan":           obj("f", math.NaN()),
		"inf deep":      obj("a", phpjson.NewList(obj("f", math.Inf(-1)))),
		"unsupported":   obj("i", 5),
		"surrogate":     obj("s", "\xed\xa0\x80"),
		"bad utf8 list": phpjson.NewList("\xff"),
	} {
		if encodablePayload(p) {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzEncodablePayload(f *testing.F) {
	f.Add([]byte(`{"task":"render","page":1}`))
	f.Add([]byte(`{"a":"\ud800"}`))
	f.Add([]byte(`{"a":1e999}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]`))
	f.Add([]byte("{\"k\xff\":1}"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := phpjson.Decode(raw)
		if err != nil {
			return
		}
		if p, ok := v.(*phpjson.Array); ok {
			checkEncodable(t, p)
		}
	})
}

func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{"", "abc", "é", "a\xff", "abc\xed\xa0\x80", "日本\xe6\x97"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if validUTF8(s) != utf8.ValidString(s) {
			t.Fatalf("validUTF8(%q) = %v", s, validUTF8(s))
		}
	})
}
