package phpjson

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzSeeds returns small inputs plus record files and result lines from the
// conformance corpus when it is present.
func fuzzSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		[]byte(`{"id":"x","data":{"a":[1,2.5,-0.0,"é\u2028",null,true,{}]}}`),
		[]byte(`[1,[2,[3]]]`), []byte(`"\ud83d\ude00"`), []byte(`{"a":1,"a":2}`),
		[]byte(`{"0":1,"1":2}`), []byte(`9223372036854775808`), []byte(`1e400`),
		[]byte("{\"a\":1/**/2, // c\n\"b\":[,],}"), []byte("\x00\v{\"a\":1}"), []byte("\xef\xbb\xbf{}"),
		[]byte(`{"a":"\u0000"}`), []byte(`[1}`), []byte(`"\ud800"`), []byte("\"\xff\""),
	}
	dir := filepath.Join("..", "..", "..", "shared", "conformance")
	files, _ := filepath.Glob(filepath.Join(dir, "doc", "*", "*", "*", "data", "*", "*.jsonc"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			seeds = append(seeds, b)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "doc", "encoding", "results.jsonl")); err == nil {
		seeds = append(seeds, bytes.Split(b, []byte("\n"))...)
	}
	return seeds
}

func hasInf(v Value) bool {
	switch x := v.(type) {
	case float64:
		return math.IsInf(x, 0)
	case *Array:
		for _, e := range x.Values() {
			if hasInf(e) {
				return true
			}
		}
	}
	return false
}

// FuzzDecode: Decode never panics, and a decoded value re-encodes, decodes
// back identically, and re-encodes to the same bytes.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := Decode(in)
		if err != nil {
			if !isJSONError(err) {
				t.Fatalf("non-PHP error %v", err)
			}
			return
		}
		out, err := Encode(v)
		if hasInf(v) {
			if err != ErrInfNaN {
				t.Fatalf("Inf encoded: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		v2, err := Decode(out)
		if err != nil || !Identical(v, v2) {
			t.Fatalf("round trip: %v\n in %q\nout %q", err, in, out)
		}
		out2, err := Encode(v2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("unstable: %q vs %q", out, out2)
		}
		pretty, err := EncodePretty(v)
		if err != nil {
			t.Fatalf("pretty: %v", err)
		}
		if v3, err := Decode(pretty); err != nil || !Identical(v, v3) {
			t.Fatalf("pretty round trip: %v\n%q", err, pretty)
		}
	})
}

// FuzzJSONCObject: the JSONC reader never panics, returns only its
// documented errors, and an object it returns survives storh's writers.
func FuzzJSONCObject(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := DecodeJSONCObject(in)
		var jerr *JSONCError
		switch {
		case err == nil:
		case err == ErrNotObject:
			return
		case errors.As(err, &jerr) && isJSONError(jerr.Err):
			return
		default:
			t.Fatalf("unexpected error %#v", err)
		}
		for _, k := range a.Keys() {
			if k.IsInt() {
				t.Fatalf("int key %v in object", k)
			}
		}
		if hasInf(a) {
			return
		}
		for _, enc := range []func(*Array) ([]byte, error){EncodeCompactObject, EncodeJSONCObject} {
			out, err := enc(a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := DecodeJSONCObject(out)
			if err != nil || !Identical(a, b) {
				t.Fatalf("rewrite round trip: %v\n%q", err, out)
			}
		}
	})
}

// TestHostileInput: deep, huge and broken inputs fail (or succeed) quickly
// without panics or stack exhaustion.
func TestHostileInput(t *testing.T) {
	deepObj := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	deepArr := nested(100000, "")
	start := time.Now()
	for _, in := range []string{deepObj, deepArr} {
		if _, err := Decode([]byte(in)); err != ErrDepth {
			t.Errorf("deep: %v", err)
		}
		v, err := DecodeDepth([]byte(in), 0)
		if err != nil {
			t.Fatalf("deep unlimited: %v", err)
		}
		if _, err := Encode(v); err != ErrDepth {
			t.Errorf("deep encode: %v", err)
		}
		if _, err := EncodePretty(v); err != ErrDepth {
			t.Errorf("deep pretty: %v", err)
		}
		if !Identical(v, v) {
			t.Error("deep identical")
		}
		if _, err := DecodeJSONCObject([]byte(in)); err == nil {
			t.Error("deep JSONC accepted")
		}
		// unterminated deep input
		if _, err := DecodeDepth([]byte(in[:len(in)/2]), 0); err != ErrSyntax {
			t.Errorf("deep truncated: %v", err)
		}
	}
	t.Logf("deep inputs took %v", time.Since(start)) // no bound: a loaded race run takes >10 s

	digits := strings.Repeat("9", 100000)
	numbers := []struct {
		in   string
		want float64
	}{
		{digits, math.Inf(1)},
		{"-" + digits, math.Inf(-1)},
		{"0." + strings.Repeat("0", 100000) + "1", 0},
		{"1e99999999999999999999", math.Inf(1)},
		{"1e-99999999999999999999", 0},
		{"123456789012345678901234567890", 1.2345678901234568e29},
	}
	for _, tt := range numbers {
		v, err := Decode([]byte(tt.in))
		if err != nil || v != tt.want {
			t.Errorf("%.30s: got %v, %v; want %v", tt.in, v, err, tt.want)
		}
	}

	// many members, with duplicates, take the map path
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 50000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strconv.Itoa(i%1000) + `":` + strconv.Itoa(i))
	}
	b.WriteString("}")
	v, err := Decode([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	a := v.(*Array)
	if a.Len() != 1000 {
		t.Fatalf("len %d", a.Len())
	}
	if got, _ := a.Lookup("k0"); got != int64(49000) {
		t.Errorf("k0 = %v", got)
	}
	if k, _ := a.At(999); k.String() != "k999" {
		t.Errorf("order: %v", k)
	}

	// every truncation of a record fails cleanly
	rec := benchRecord
	for i := 0; i < len(rec)-1; i++ {
		_, err := Decode(rec[:i])
		complete := i >= len(rec)-1 // only the full object (without "\n") is valid
		if (err == nil) != complete {
			t.Errorf("prefix %d: %v", i, err)
		}
		DecodeJSONCObject(rec[:i])
	}
	// NUL bytes and BOM
	for _, in := range []string{"\x00", "{\"a\":1}\x00", "\x00{\"a\":1}", "\xef\xbb\xbf{\"a\":1}", "{\"a\x00\":1}"} {
		if _, err := Decode([]byte(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// isJSONError reports whether err is (or wraps) one of PHP's JSON errors,
// what PHP would throw as a JsonException.
func isJSONError(err error) bool {
	for _, e := range []error{ErrDepth, ErrStateMismatch, ErrCtrlChar, ErrSyntax, ErrUTF8, ErrInfNaN, ErrUnsupportedType, ErrUTF16} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
