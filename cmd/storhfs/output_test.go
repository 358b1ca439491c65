package main

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/phpjson"
)

func TestEncodeCLIJSON(t *testing.T) {
	nested := phpjson.NewArray(0)
	nested.SetString("k", phpjson.NewList())
	cases := []struct {
		name string
		v    phpjson.Value
		want string
	}{
		{"empty array", phpjson.NewArray(0), "[]\n"},
		{"list", phpjson.NewList("a", int64(1)), "[\n    \"a\",\n    1\n]\n"},
		{"nested empty", nested, "{\n    \"k\": []\n}\n"},
		{"slash unescaped", "a/b", "\"a/b\"\n"},
		{"latin", "Zürich", "\"Z\\u00fcrich\"\n"},
		{"bmp", "日本", "\"\\u65e5\\u672c\"\n"},
		{"astral surrogate pair", "x😀y", "\"x\\ud83d\\ude00y\"\n"},
		{"astral max", "\U0010FFFF", "\"\\udbff\\udfff\"\n"},
		{"line separator", "a\u2028b", "\"a\\u2028b\"\n"},
		{"controls and quotes", "q\"\\\n\t\x01", "\"q\\\"\\\\\\n\\t\\u0001\"\n"},
		{"float zero fraction", 1.0, "1\n"},
		{"float big zero fraction", 100.0, "100\n"},
		{"negative zero", math.Copysign(0, -1), "-0\n"},
		{"float fraction", 1.5, "1.5\n"},
		{"float exponent", 1e25, "1.0e+25\n"},
		{"int", int64(-7), "-7\n"},
		{"string that looks like a float", "1.0", "\"1.0\"\n"},
		{"escaped quote then number-like", "\\\"1.0", "\"\\\\\\\"1.0\"\n"},
		{"bools and null", phpjson.NewList(true, false, nil), "[\n    true,\n    false,\n    null\n]\n"},
	}
	for _, tc := range cases {
		got, err := encodeCLIJSON(tc.v)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestEncodeCLIJSONKeysAndErrors(t *testing.T) {
	a := phpjson.NewArray(0)
	a.SetString("é/k", 2.0)
	a.Set(phpjson.IntKey(5), "v")
	got, err := encodeCLIJSON(a)
	if want := "{\n    \"\\u00e9/k\": 2,\n    \"5\": \"v\"\n}\n"; err != nil || string(got) != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if _, err := encodeCLIJSON("\xff"); err == nil {
		t.Error("invalid UTF-8 encoded without error")
	}
}

func TestTrimZeroFraction(t *testing.T) {
	for in, want := range map[string]string{
		"1.0": "1", "-0.0": "-0", "10.0": "10", "1.5": "1.5", "1.0e+25": "1.0e+25",
		"1.05": "1.05", "0": "0", ".0": ".0", "-": "-", "1e0": "1e0",
	} {
		if got := string(trimZeroFraction([]byte(in))); got != want {
			t.Errorf("trimZeroFraction(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRunProgressDrawsAndStops(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(dir + "/tty")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := runProgress(f, "export pages", fileSize(dir+"/tty"))
	// Poll until the first draw, within a deadline far past a tick.
	var b []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if b, _ = os.ReadFile(dir + "/tty"); strings.Contains(string(b), "export pages") {
			break
		}
		time.Sleep(progressTick / 4)
	}
	p.Finish()
	p.Finish() // idempotent
	if !strings.Contains(string(b), "export pages") {
		t.Errorf("progress drew %q", b)
	}
	var none *progress
	none.Finish()
}
