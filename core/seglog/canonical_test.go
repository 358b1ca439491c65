package seglog

import (
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// canonicalRoundTrip is what canonicalData promises: PHP's reading of data
// (decode, record filter), encoded like storh, gives data back.
func canonicalRoundTrip(data []byte) bool {
	v, err := phpjson.DecodeDepth(data, phpjson.DefaultDepth-1)
	if err != nil {
		return false
	}
	out, err := phpjson.AppendEncode(nil, recordData(v))
	return err == nil && string(out) == string(data)
}

var canonicalCases = []struct {
	data string
	want bool
}{
	{`{"type":"view","user":"user-0","n":0,"msg":"event 0"}`, true},
	{`{"a":1.0,"b":-0.0,"c":1.0e+25,"d":1.5e-7,"e":0.1}`, true},
	{`{"a":[],"b":[1,2,[3]],"c":{"x":null,"y":true,"z":false}}`, true},
	{`{"s":"Grüße / <&> \"q\" \\ \n\t\b\f\r \u001f \u2028\u2029"}`, true},
	{`{"":1}`, true},
	{`{"-":1,"1a":2,"a1":3}`, true},
	{`{"a":9223372036854775807,"b":-9223372036854775808}`, true},
	{`{}`, false},                        // reads as []
	{`{"a":{}}`, false},                  // nested {} too
	{`[1,2]`, false},                     // a list reads as empty
	{`"x"`, false},                       // not an array
	{`{"0":"drop","keep":"yes"}`, false}, // int key filtered
	{`{"a":{"0":1}}`, false},             // nested int key: a list
	{`{"a":1,"a":2}`, false},             // duplicate key
	{`{"a": 1}`, false},                  // whitespace
	{`{"a":1 }`, false},
	{`{"a":1.00}`, false}, // float printed 1.0
	{`{"a":1e2}`, false},  // printed 100.0
	{`{"a":2.50}`, false},
	{`{"a":-0}`, false}, // int 0
	{`{"a":01}`, false}, // invalid JSON
	{`{"a":1.}`, false},
	{`{"a":9223372036854775808}`, false}, // a float in PHP
	{`{"a":"\/"}`, false},                // escaped slash
	{`{"a":"\u00e9"}`, false},            // escaped non-ASCII
	{`{"a":"\u000A"}`, false},            // uppercase hex, and \n form
	{`{"a":"\u000a"}`, false},            // written \n
	{`{"a":"\u001F"}`, false},
	{"{\"a\":\"\x01\"}", false},         // raw control
	{"{\"a\":\"\xe2\x80\xa8\"}", false}, // raw U+2028
	{"{\"a\":\"\xff\"}", false},         // invalid UTF-8
	{`{"a\u0062":1}`, false},            // escaped key
	{`{"a":tru}`, false},
	{`{"a":1,}`, false},
	{`{"a":1`, false},
	{`{"a":1}}`, false},
	{`{"a":1},"data":2`, false},
	{`{"a":NaN}`, false},
	{`{"a":[1,]}`, false},
}

func TestCanonicalData(t *testing.T) {
	for _, tc := range canonicalCases {
		if got := canonicalData([]byte(tc.data)); got != tc.want {
			t.Errorf("canonicalData(%s) = %v, want %v", tc.data, got, tc.want)
		}
		if tc.want && !canonicalRoundTrip([]byte(tc.data)) {
			t.Errorf("%s: case says canonical but does not round-trip", tc.data)
		}
	}
}

func TestCanonicalDataBounds(t *testing.T) {
	deep := ""
	for range phpjson.CanonicalMaxDepth + 1 {
		deep += `{"a":`
	}
	deep += "1"
	for range phpjson.CanonicalMaxDepth + 1 {
		deep += "}"
	}
	if canonicalData([]byte(deep)) {
		t.Error("nesting beyond phpjson.CanonicalMaxDepth accepted")
	}
	wide := "{"
	for i := range phpjson.CanonicalMaxMembers + 1 {
		if i > 0 {
			wide += ","
		}
		wide += `"k` + string(rune('A'+i%26)) + string(rune('a'+i/26)) + `":1`
	}
	wide += "}"
	if canonicalData([]byte(wide)) {
		t.Error("more than phpjson.CanonicalMaxMembers keys accepted")
	}
}

// FuzzCanonicalData: whatever canonicalData accepts round-trips exactly.
func FuzzCanonicalData(f *testing.F) {
	for _, tc := range canonicalCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if canonicalData(data) && !canonicalRoundTrip(data) {
			t.Fatalf("accepted but not canonical: %q", data)
		}
	})
}

func canonicalData(data []byte) bool {
	var c canonChecker
	return c.check(data)
}
