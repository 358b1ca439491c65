package docindex

import (
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

var jsonStringSeeds = []string{
	"", "a", idA, "01234567", "0123456\"", "\\1234567", "abcdefg\x1f", "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f",
	" !#$%&'()*+,-./0123456789:;<=>?@[]^_`{|}~", "é", "0123456789é", "\u2028", "tab\there",
	"bad\xff", strings.Repeat("x", 31) + "\x00", "\x20\x20\x20\x20\x20\x20\x20\x20\x21",
}

func checkJSONString(t *testing.T, s string) {
	want, werr := phpjson.AppendString([]byte("p"), s)
	got, gerr := phpjson.AppendString([]byte("p"), s)
	if (werr == nil) != (gerr == nil) || (werr == nil && string(got) != string(want)) {
		t.Errorf("%q: got %q, %v; want %q, %v", s, got, gerr, want, werr)
	}
}

func TestAppendJSONStringMatchesPHPJSON(t *testing.T) {
	for _, s := range jsonStringSeeds {
		checkJSONString(t, s)
	}
	// Every single byte at every position of an 8-byte word and the tail.
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 11; pos++ {
			b := []byte("abcdefghijk")
			b[pos] = byte(c)
			checkJSONString(t, string(b))
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringSeeds {
		f.Add(s)
	}
	f.Fuzz(checkJSONString)
}
