package phpjson

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecodeJSONCObject(t *testing.T) {
	const (
		ok      = "ok"
		notObj  = "notobj"
		jsonErr = "jsonerr"
	)
	tests := []struct {
		in      string
		outcome string
		want    string // Encode of the object when ok
		jerr    error  // the JSON error when jsonErr
	}{
		// the table of docs/format/phpjson.md §5.4, verified against PHP
		{`{"a":1}`, ok, `{"a":1}`, nil},
		{"\x00\v {\"a\":1}\n", ok, `{"a":1}`, nil},
		{"\f{\"a\":1}", notObj, "", nil},
		{"\xef\xbb\xbf{\"a\":1}", notObj, "", nil},
		{`{"a":1} // c`, ok, `{"a":1}`, nil},
		{`{"a":1} /* never`, ok, `{"a":1}`, nil},
		{`{"a":1 /* never }`, notObj, "", nil},
		{`{"u":"a\"//b",}`, ok, `{"u":"a\"//b"}`, nil},
		{`{"a":[1,2,],"b":{"c":1,},}`, ok, `{"a":[1,2],"b":{"c":1}}`, nil},
		{`{"a":",}"}`, ok, `{"a":",}"}`, nil},
		{`{'a':1}`, jsonErr, "", ErrSyntax},
		{`{a:1}`, jsonErr, "", ErrSyntax},
		{"{# c\n\"a\":1}", jsonErr, "", ErrSyntax},
		{`{"a":1/2}`, jsonErr, "", ErrSyntax},
		{`[1,2]`, notObj, "", nil},
		{`{"0":1}`, notObj, "", nil},
		{`{"0":1,"a":2}`, notObj, "", nil},
		{`x{"a":1}`, notObj, "", nil},
		{`{}`, ok, `[]`, nil},
		{`  { }  `, ok, `[]`, nil},
		// docstore 3.5 and conformance README section 10
		{"  // line comment\n{\"id\": \"x\", /* note */ \"data\": {\"items\": [1,2,],},}", ok, `{"id":"x","data":{"items":[1,2]}}`, nil},
		{`{"a":[,]}`, ok, `{"a":[]}`, nil},
		{`{"a":1/**/2}`, ok, `{"a":12}`, nil},
		{`{"a":[1,,]}`, jsonErr, "", ErrSyntax},
		{`{"a":1,,}`, jsonErr, "", ErrSyntax},
		{"{\"a\":1, // c\n}", ok, `{"a":1}`, nil},
		{"{\"a\":1,\r\n}", ok, `{"a":1}`, nil},
		{"{\"a\":1,\f}", jsonErr, "", ErrCtrlChar}, // comma dropped, \f is not JSON whitespace
		{"\x00{\"a\":1}", ok, `{"a":1}`, nil},
		{"\v{\"a\":1}", ok, `{"a":1}`, nil},
		{"", notObj, "", nil},
		{"   ", notObj, "", nil},
		{"{ broken", notObj, "", nil},
		{"{ broken }", jsonErr, "", ErrSyntax},
		{"{\"a\":\"\xff\"}", jsonErr, "", ErrUTF8},
		{`"{}"`, notObj, "", nil},
		{`1`, notObj, "", nil},
		{`null`, notObj, "", nil},
		{`{"5":"x","a":1}`, notObj, "", nil},
		{`{"-5":"x"}`, notObj, "", nil},
		{`{"05":"x"}`, ok, `{"05":"x"}`, nil},
		{`{"a":{"0":1}}`, ok, `{"a":[1]}`, nil},
		{`{"a":1}` + "\n/* tail */\n", ok, `{"a":1}`, nil},
		{`{"a":1}garbage`, notObj, "", nil},
		{`{"a":1} {"b":2}`, jsonErr, "", ErrSyntax},
		{`{"a":"/*"}/*"*/`, ok, `{"a":"/*"}`, nil},
		{`{"a":"\\"}// x`, ok, `{"a":"\\"}`, nil},
		{"{\"a\":\"x\"}\x00", ok, `{"a":"x"}`, nil},
		{`{"a":1}` + "\x00//", ok, `{"a":1}`, nil},
	}
	for _, tt := range tests {
		a, err := DecodeJSONCObject([]byte(tt.in))
		var jerr *JSONCError
		switch tt.outcome {
		case ok:
			if err != nil {
				t.Errorf("%q: %v", tt.in, err)
				continue
			}
			if out, _ := Encode(a); string(out) != tt.want {
				t.Errorf("%q: got %s, want %s", tt.in, out, tt.want)
			}
		case notObj:
			if err != ErrNotObject {
				t.Errorf("%q: got %v, want ErrNotObject", tt.in, err)
			}
		case jsonErr:
			if !errors.As(err, &jerr) || jerr.Err != tt.jerr || err.Error() != tt.jerr.Error() || !errors.Is(err, tt.jerr) {
				t.Errorf("%q: got %#v, want JSONCError{%v}", tt.in, err, tt.jerr)
			}
		}
	}
}

func TestJSONCDepth(t *testing.T) {
	// docs/format/phpjson.md §3.2: nesting 511 levels accepted, 512 fail.
	in := `{"a":` + nested(510, "") + `}`
	if _, err := DecodeJSONCObject([]byte(in)); err != nil {
		t.Errorf("511: %v", err)
	}
	in = `{"a":` + nested(511, "") + `}`
	var jerr *JSONCError
	if _, err := DecodeJSONCObject([]byte(in)); !errors.As(err, &jerr) || jerr.Err != ErrDepth {
		t.Errorf("512: %v", err)
	}
}

func TestStripComments(t *testing.T) {
	tests := []struct{ in, want string }{
		{`1/**/2`, `12`},
		{`a//x` + "\nb", "a\nb"},
		{`a//x` + "\rb", "a\rb"},
		{`a//x`, `a`},
		{"a/*x\ny\r*/b", "a \n \rb"},
		{`a/*xyz`, `a  `}, // the last byte of an unterminated comment is dropped
		{"a/*x\n", "a "},
		{`a/*`, `a`},
		{`a/*/`, `a`},
		{`a/`, `a/`},
		{`a/b`, `a/b`},
		{`"//"//c`, `"//"`},
		{`"\"/*"/**/`, `"\"/*"`},
		{`"\\"/**/x`, `"\\"x`},
		{`/*"*/"/*"`, ` "/*"`},
		{`//"` + "\n" + `"a"`, "\n\"a\""},
		{`a/**/*/`, `a*/`},
	}
	for _, tt := range tests {
		if got := string(StripComments([]byte(tt.in))); got != tt.want {
			t.Errorf("StripComments(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStripTrailingCommas(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[1,]`, `[1]`},
		{`[,]`, `[]`},
		{`[1,,]`, `[1,]`},
		{"{\"a\":1,\n\t\v\f\r }", "{\"a\":1\n\t\v\f\r }"},
		{`[1, `, `[1, `},
		{`[1,`, `[1,`},
		{`{"a":",}"}`, `{"a":",}"}`},
		{`{"a\",]":1,}`, `{"a\",]":1}`},
		{`[1,2]`, `[1,2]`},
	}
	for _, tt := range tests {
		if got := string(StripTrailingCommas([]byte(tt.in))); got != tt.want {
			t.Errorf("StripTrailingCommas(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEncodeJSONCObjectManifests(t *testing.T) {
	dir := conformanceDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "doc", "*", "expected", "*", ".storh", "indexes", "manifest.jsonc"))
	logFiles, _ := filepath.Glob(filepath.Join(dir, "log", "*", "expected", "*", "manifest.jsonc"))
	idx, _ := filepath.Glob(filepath.Join(dir, "log", "*", "expected", "*", "segments", "*.idx.jsonc"))
	if len(files) == 0 || len(logFiles) == 0 || len(idx) == 0 {
		t.Fatalf("missing fixtures: %d doc manifests, %d log manifests, %d idx", len(files), len(logFiles), len(idx))
	}
	check := func(path string, enc func(*Array) ([]byte, error)) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(strings.Replace(path, "/expected/", "/before/", 1))
		if string(before) == string(text) {
			return // planted by before/, not written by PHP
		}
		a, err := DecodeJSONCObject(text)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return
		}
		out, err := enc(a)
		if err != nil || string(out) != string(text) {
			t.Errorf("%s: %v\n got %q\nwant %q", path, err, out, text)
		}
	}
	for _, f := range files {
		check(f, EncodeJSONCObject) // pretty + "\n"
	}
	for _, f := range append(logFiles, idx...) {
		check(f, EncodeCompactObject) // compact + "\n"
	}
	if out, _ := EncodeJSONCObject(NewArray(0)); string(out) != "{}\n" {
		t.Errorf("empty: %q", out)
	}
	if out, _ := EncodeCompactObject(NewArray(0)); string(out) != "{}\n" {
		t.Errorf("empty compact: %q", out)
	}
}
