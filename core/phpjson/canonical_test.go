package phpjson

import (
	"strings"
	"testing"
)

// checkCanonicalClaim fails when IsCanonicalArray accepts b but b is not
// exactly the encoding of the array it decodes to.
func checkCanonicalClaim(t *testing.T, b []byte) bool {
	t.Helper()
	if !IsCanonicalArray(b) {
		return false
	}
	v, err := Decode(b)
	if err != nil {
		t.Fatalf("%q: accepted, Decode: %v", b, err)
	}
	if _, ok := v.(*Array); !ok {
		t.Fatalf("%q: accepted, decodes to %T", b, v)
	}
	enc, err := Encode(v)
	if err != nil || string(enc) != string(b) {
		t.Fatalf("%q: accepted, re-encodes to %q (%v)", b, enc, err)
	}
	return true
}

var canonicalCases = []struct {
	in   string
	want bool
}{
	{`{"a":1}`, true},
	{`[]`, true},
	{`[1,-2,0,"x",true,false,null,[],{"b":[{"c":"d"}]}]`, true},
	{`{"title":"Record number 1","kind":"k1","n":123456789012345678,"body":"é ü \" \\ \n \t"}`, true},
	{`{"":1,"a b":2}`, true},
	{"{\"a\":\"\x7f\"}", true},
	{`{}`, false},                    // decodes to [], written []
	{`{"0":1}`, false},               // int key: becomes a list
	{`{"5":1}`, false},               // int key (conservative)
	{`{"-1":1}`, false},              // int key (conservative)
	{`{"a":1,"a":2}`, false},         // duplicate key
	{`{"a":1.0}`, true},              // float as FormatFloat prints it
	{`{"a":1e2}`, false},             // float written 100.0
	{`[-0]`, false},                  // decodes to 0
	{`[01]`, false},                  // invalid
	{`[1234567890123456789]`, true},  // 19 digits, still an int64
	{`[9223372036854775808]`, false}, // beyond int64: decodes to a float
	{`["\/"]`, false},                // written "/"
	{`["\u0041"]`, false},            // written "A"
	{`["\u001f"]`, true},             // how a control character is written
	{`["\u001F"]`, false},            // written in lower case
	{"[\"\u2028\"]", false},          // written \u2028
	{"[\"\x01\"]", false},            // control character: invalid
	{"[\"\xff\"]", false},            // invalid UTF-8
	{`[1, 2]`, false},                // whitespace
	{`[1,]`, false},
	{`[1]]`, false},
	{`"x"`, false}, // not an array
	{`[`, false},
	{`{"a"`, false},
	{`{"a":`, false},
	{`["abc`, false},
	{`["\`, false},
}

func TestIsCanonicalArray(t *testing.T) {
	for _, c := range canonicalCases {
		if got := checkCanonicalClaim(t, []byte(c.in)); got != c.want {
			t.Errorf("IsCanonicalArray(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	deep := strings.Repeat("[", CanonicalMaxDepth) + strings.Repeat("]", CanonicalMaxDepth)
	if !checkCanonicalClaim(t, []byte(deep)) {
		t.Error("depth limit not reached yet, but refused")
	}
	if IsCanonicalArray([]byte("[" + deep + "]")) {
		t.Error("accepted beyond the depth limit")
	}
}

func FuzzIsCanonicalArray(f *testing.F) {
	for _, c := range canonicalCases {
		f.Add([]byte(c.in))
	}
	f.Add(benchRecord)
	f.Add(smallRecord)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkCanonicalClaim(t, b)
		// Whatever decodes: its own encoding must be accepted or refused
		// without a false claim, and simple shapes must be accepted.
		if v, err := Decode(b); err == nil {
			if enc, err := Encode(v); err == nil {
				checkCanonicalClaim(t, enc)
			}
		}
	})
}
