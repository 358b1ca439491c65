package queue

import (
	"strings"
	"testing"
)

// workedExample is the 1000-byte queue.log of spec queue.md A4.
const workedExample = "113\t308e94c3\t{\"op\":\"enqueue\",\"id\":\"018bcfe5-6800-7000-8000-00000000000a\",\"payload\":{\"task\":\"render\",\"page\":1},\"ts\":1700000000}\n" +
	"89\ta1d7be8d\t{\"op\":\"enqueue\",\"id\":\"018bcfe5-6801-7000-8000-00000000000b\",\"payload\":[],\"ts\":1700000000}\n" +
	"115\t8a198a41\t{\"op\":\"enqueue\",\"id\":\"018bcfe5-6802-7000-8000-00000000000c\",\"payload\":{\"to\":\"a/b@é.test\",\"n\":1.0},\"ts\":1700000001}\n" +
	"74\tc36a1141\t{\"op\":\"claim\",\"id\":\"018bcfe5-6800-7000-8000-00000000000a\",\"ts\":1700000005}\n" +
	"74\t4b64f9a1\t{\"op\":\"claim\",\"id\":\"018bcfe5-6801-7000-8000-00000000000b\",\"ts\":1700000005}\n" +
	"89\t7d2f1bef\t{\"op\":\"complete\",\"id\":\"018bcfe5-6800-7000-8000-00000000000a\",\"done\":true,\"ts\":1700000010}\n" +
	"76\t893d55d9\t{\"op\":\"requeue\",\"id\":\"018bcfe5-6801-7000-8000-00000000000b\",\"ts\":1700003700}\n" +
	"74\t3ef75350\t{\"op\":\"claim\",\"id\":\"018bcfe5-6802-7000-8000-00000000000c\",\"ts\":1700003701}\n" +
	"90\t4712d17a\t{\"op\":\"complete\",\"id\":\"018bcfe5-6802-7000-8000-00000000000c\",\"done\":false,\"ts\":1700003702}\n" +
	"74\t4f07f53a\t{\"op\":\"purge\",\"id\":\"018bcfe5-6800-7000-8000-00000000000a\",\"ts\":1700090000}\n"

func TestAppendGuardedVectors(t *testing.T) {
	for _, tc := range []struct{ json, line string }{
		{"", "0\t02cc5d05\t\n"},
		{"abc", "3\t32d153ff\tabc\n"},
		{"{}", "2\t18473489\t{}\n"},
	} {
		if got := string(AppendGuarded(nil, []byte(tc.json))); got != tc.line {
			t.Errorf("AppendGuarded(%q) = %q, want %q", tc.json, got, tc.line)
		}
	}
	if len(workedExample) != 1000 {
		t.Fatalf("worked example is %d bytes", len(workedExample))
	}
	for _, line := range strings.SplitAfter(workedExample, "\n") {
		if line == "" {
			continue
		}
		json := line[strings.LastIndexByte(line[:strings.Index(line, "{")], '\t')+1 : len(line)-1]
		if got := string(AppendGuarded(nil, []byte(json))); got != line {
			t.Errorf("AppendGuarded = %q, want %q", got, line)
		}
	}
}

func TestParseGuarded(t *testing.T) {
	good := "3\t32d153ff\tabc"
	for _, tc := range []struct {
		name, line, json string
		fault            GuardFault
	}{
		{"plain", good + "\n", "abc", GuardOK},
		{"crlf", good + "\r\n", "abc", GuardOK},
		{"many cr lf", good + "\r\r\n\n", "abc", GuardOK},
		{"leading zeros", "0003\t32d153ff\tabc\n", "abc", GuardOK},
		{"tabs in json", "5\t" + hashOf("a\tb\tc") + "\ta\tb\tc\n", "a\tb\tc", GuardOK},
		{"empty json", "0\t02cc5d05\t\n", "", GuardOK},
		{"torn", good, "", GuardTorn},
		{"torn empty", "", "", GuardTorn},
		{"torn cr", good + "\r", "", GuardTorn},
		{"empty line", "\n", "", GuardMalformed},
		{"crlf only", "\r\n", "", GuardMalformed},
		{"two parts", "3\t32d153ff\n", "", GuardMalformed},
		{"one part", "garbage\n", "", GuardMalformed},
		{"empty len", "\t32d153ff\tabc\n", "", GuardMalformed},
		{"signed len", "+3\t32d153ff\tabc\n", "", GuardMalformed},
		{"spaced len", " 3\t32d153ff\tabc\n", "", GuardMalformed},
		{"hex len", "0x3\t32d153ff\tabc\n", "", GuardMalformed},
		{"wrong len", "4\t32d153ff\tabc\n", "", GuardCorrupt},
		{"huge len", "99999999999999999999999999999\t32d153ff\tabc\n", "", GuardCorrupt},
		{"huge len wrapping to 3", "18446744073709551619\t32d153ff\tabc\n", "", GuardCorrupt},
		{"upper hash", "3\t32D153FF\tabc\n", "", GuardCorrupt},
		{"short hash", "3\t32d153f\tabc\n", "", GuardCorrupt},
		{"bad hash", "3\t32d153fe\tabc\n", "", GuardCorrupt},
		{"len counts cr", "4\t" + hashOf("abc\r") + "\tabc\r\n", "", GuardCorrupt},
		{"bom", "\xef\xbb\xbf3\t32d153ff\tabc\n", "", GuardMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			json, fault := ParseGuarded([]byte(tc.line))
			if fault != tc.fault || string(json) != tc.json {
				t.Errorf("ParseGuarded(%q) = %q, %d; want %q, %d", tc.line, json, fault, tc.json, tc.fault)
			}
		})
	}
}

func hashOf(s string) string {
	line := string(AppendGuarded(nil, []byte(s)))
	return strings.Split(line, "\t")[1]
}

func FuzzParseGuarded(f *testing.F) {
	for _, line := range strings.SplitAfter(workedExample, "\n") {
		f.Add([]byte(line))
	}
	f.Add([]byte("0003\t32d153ff\tabc\r\n"))
	f.Add([]byte("99999999999999999999\t32d153ff\tabc\n"))
	f.Add([]byte("\n"))
	f.Fuzz(func(t *testing.T, line []byte) {
		json, fault := ParseGuarded(line)
		if fault != GuardOK {
			return
		}
		// Whatever passes re-frames to the canonical line (modulo CR/LF
		// endings and leading zeros in LEN).
		canon := AppendGuarded(nil, json)
		back, f2 := ParseGuarded(canon)
		if f2 != GuardOK || string(back) != string(json) {
			t.Fatalf("canonical line %q does not parse back", canon)
		}
	})
}
