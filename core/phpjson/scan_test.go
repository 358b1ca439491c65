package phpjson

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// checkNumbers checks every float the number scanner reads from in
// (tried at each offset) against strconv.ParseFloat, bit for bit: the
// scanner must hand strconv exactly the token PHP reads.
func checkNumbers(t *testing.T, in []byte) {
	t.Helper()
	s := string(in)
	for start := range len(s) {
		v, next, ok := scanNumber(s, start)
		f, isFloat := v.(float64)
		if !ok || !isFloat {
			continue
		}
		want, err := strconv.ParseFloat(s[start:next], 64)
		if ne, isNum := err.(*strconv.NumError); err != nil && (!isNum || ne.Err != strconv.ErrRange) {
			t.Fatalf("scanNumber accepted %q, strconv: %v", s[start:next], err)
		}
		if math.Float64bits(f) != math.Float64bits(want) {
			t.Fatalf("%q: scanNumber %v (%#x), strconv %v (%#x)", s[start:next], f, math.Float64bits(f), want, math.Float64bits(want))
		}
	}
}

// referenceSeeds exercise the string scan around every special byte at
// every offset, and numbers at the limits of float64.
func referenceSeeds() []string {
	seeds := []string{
		`{"type":"page.saved","n":12345,"ratio":6172.5,"path":"/a/b/c"}`,
		`{"title":"Record number 12345","kind":"k5","tag":"t45","n":12345,"body":"A short body of text for the benchmark."}`,
		string(benchRecord),
		`[0.1,-0.0,0e5,1e22,1e23,123456789012345.6,1234567890123456,9007199254740993.0,1.5e-22,1.5e-23,-2.5E+3,0.000000000000000000001,1e999,1e-999,4.9e-324,1.7976931348623157e308]`,
		`[1.0e0000,1e0001,12e-0022,0.1e1,100000000000000000000000.0]`,
		`{"a":1,"a":2,"1":3,"-1":4,"01":5,"":6,"-":7}`,
		" { \"k\" : [ 1 , 2 ] , \"m\" : { } } \n",
		strings.Repeat("[", 31) + strings.Repeat("]", 31),
		strings.Repeat("[", 32) + strings.Repeat("]", 32),
		strings.Repeat("[", 33) + "1" + strings.Repeat("]", 33),
		strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40),
		`[` + strings.Repeat(`1,`, 40) + `{"k":[` + strings.Repeat(`"v",`, 20) + `2]}]`,
		`{` + strings.Repeat(`"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,`, 3) + `"a":10,"z":[]}`,
		`{"x" 1}`, `{"x":1,}`, `[1,]`, `{"a":1]`, `[1}`, `{,}`, `{"a"`, `"abc`, `-`, `01`, `1.`, `1e`, `[tru]`,
	}
	var wide strings.Builder // > fastInline members, duplicates on both sides of the spill
	wide.WriteString(`{"k3":0`)
	for i := range 20 {
		fmt.Fprintf(&wide, `,"k%d":[%d,{"n":%d}]`, i, i, i)
	}
	wide.WriteString(`,"k3":"again","k19":"again","5":5,"k20":1}`)
	seeds = append(seeds, wide.String(), "[\n"+strings.Repeat(` 1.5 ,`, 40)+"\t[]]")
	for _, special := range []string{`"`, `\`, `\n`, `\u00e9`, `\ud83d\ude00`, "\x01", "\x7f", "é", "\xff", "\xe2\x82", "😀"} {
		for off := 0; off < 18; off++ {
			pad := strings.Repeat("a", off)
			body := pad + special + "tail-bytes"
			seeds = append(seeds, `["`+body+`"]`, `{"`+body+`":1}`, `"`+pad+special)
		}
	}
	return seeds
}

func TestScanNumberAgreesWithStrconv(t *testing.T) {
	for _, s := range referenceSeeds() {
		checkNumbers(t, []byte(s))
	}
}

func FuzzScanNumberAgainstStrconv(f *testing.F) {
	for _, s := range referenceSeeds() {
		f.Add([]byte(s))
	}
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(checkNumbers)
}

// TestDecodeAllocations pins the allocations of a typical record's data:
// the input copy, the array and its key and value slices, one box per
// string and per number >= 256, and nothing for the parse itself (its
// scratch comes from a pool).
func TestDecodeAllocations(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts: not in -short runs, and not exact under the race detector (sync.Pool drops items)")
	}
	got := testing.AllocsPerRun(200, func() {
		if _, err := DecodeDepth(logData, DefaultDepth-1); err != nil {
			t.Fatal(err)
		}
	})
	// logData: copy, array, keys, values, "page.saved", "/a/b/c", 12345, 6172.5.
	if got > 8 {
		t.Errorf("DecodeDepth(logData): %v allocations, want 8", got)
	}
}
