package phpjson

import (
	"bytes"
	"testing"

	"github.com/tailscale/hujson"
)

// storh's JSONC reader is PHP's own state machine, not hujson (jsonc.go says
// why), but on every input that hujson accepts as a JSONC object the two
// must agree: whatever hujson standardizes to plain JSON, storh reads to the
// same PHP value. This cross-checks our comment and trailing-comma handling
// against a maintained implementation.
//
// The one known difference in dialect: storh ends a `//` comment at \r as
// well as \n, hujson only at \n, so input with a lone \r (not part of
// \r\n) is left out.
func agreesWithHujson(t *testing.T, in []byte) {
	t.Helper()
	if bytes.Contains(bytes.ReplaceAll(in, []byte("\r\n"), nil), []byte("\r")) {
		return
	}
	std, err := hujson.Standardize(append([]byte(nil), in...))
	if err != nil {
		return // outside hujson's dialect: nothing to compare
	}
	want, err := Decode(std)
	if err != nil {
		return // e.g. depth, duplicate-free PHP rules: Decode owns those errors
	}
	wantObj, isObj := want.(*Array)
	if !isObj || len(std) == 0 || std[firstNonSpace(std)] != '{' {
		return
	}
	for _, k := range wantObj.Keys() {
		if k.IsInt() {
			return // storh refuses top-level int keys; hujson has no such rule
		}
	}
	got, err := DecodeJSONCObject(in)
	if err != nil {
		t.Fatalf("hujson reads %q as %s, storh's reader fails: %v", in, std, err)
	}
	if !Identical(got, wantObj) {
		t.Fatalf("hujson and storh's reader disagree on %q", in)
	}
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return 0
}

func TestLoneCREndsALineComment(t *testing.T) {
	// PHP's strip_comments stops a // comment at \r: "0" survives and the
	// object is invalid, where hujson would read {}.
	if _, err := DecodeJSONCObject([]byte("{//\r0\n}")); err == nil {
		t.Fatal("storh's reader accepted a value after a lone-CR line comment")
	}
}

func TestJSONCAgreesWithHujson(t *testing.T) {
	for _, in := range []string{
		`{"a":1}`,
		"// head\n{\"a\": [1, 2,], /* mid */ \"b\": {\"c\": null,},}\n",
		"{\r\n  \"id\": \"x\", // trailing\r\n  \"data\": {\"k\": \"v // not a comment\"}\r\n}",
		`{"s": "/* not a comment */", "t": "\"//\""}`,
		"{\"a\":1} // after\n",
		"{\"a\":1} /* after */",
		`{"a":{"b":{"c":[[],{},[1,]]}}}`,
		`{"n": -0.0, "big": 9223372036854775808, "e": 1E2}`,
		`{"dup": 1, "dup": 2}`,
	} {
		agreesWithHujson(t, []byte(in))
		if _, err := DecodeJSONCObject([]byte(in)); err != nil {
			t.Errorf("storh's reader rejects %q: %v", in, err)
		}
	}
}

func FuzzJSONCAgainstHujson(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) { agreesWithHujson(t, in) })
}
