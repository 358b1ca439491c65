package guard

import (
	"strings"
	"testing"
)

// docs/format/segmentedlog.md §2.1 and docs/format/queue.md §2.1 vectors (PHP hash('xxh32', ...)).
func TestAppendVectors(t *testing.T) {
	for _, tc := range []struct{ json, header string }{
		{"", "0\t02cc5d05\t"},
		{"abc", "3\t32d153ff\t"},
		{"{}", "2\t18473489\t"},
		{`{"op":"delete","id":"018bcfe5-6800-7000-8000-000000000002"}`, "59\t9727cb3b\t"},
		{`{"op":"delete","id":"0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"}`, "59\t86fa4371\t"},
		{`{"op":"put","id":"0190a1b2-c3d5-7000-9000-000000000001","data":[]}`, "66\taf64dde4\t"},
		{`{"op":"put","id":"018bcfe5-6800-7000-8000-000000000001","data":{"n":21}}`, "72\t09e4fd6a\t"},
		{`{"op":"put","id":"0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","data":{"type":"page.saved","pageId":42,"ratio":1.0,"path":"/a/b","title":"Grüße"}}`, "141\t30fb832a\t"},
		{`{"op":"enqueue","id":"018bcfe5-6800-7000-8000-00000000000a","payload":{"task":"render","page":1},"ts":1700000000}`, "113\t308e94c3\t"},
		{`{"op":"enqueue","id":"018bcfe5-6802-7000-8000-00000000000c","payload":{"to":"a/b@é.test","n":1.0},"ts":1700000001}`, "115\t8a198a41\t"},
	} {
		want := tc.header + tc.json + "\n"
		got := string(Append(nil, []byte(tc.json)))
		if got != want {
			t.Errorf("Append(%q) = %q, want %q", tc.json, got, want)
		}
		for _, r := range []Rules{Queue(), SegLogFull(), SegLogFast()} {
			if json, f := r.Parse([]byte(got)); f != OK || string(json) != tc.json {
				t.Errorf("%+v.Parse(%q) = %q, %v", r, got, json, f)
			}
		}
	}
}

func hashOf(s string) string { return strings.Split(string(Append(nil, []byte(s))), "\t")[1] }

// TestQueueRules: docs/format/queue.md §2.2 steps 1-4.
func TestQueueRules(t *testing.T) {
	good := "3\t32d153ff\tabc\n"
	for _, tc := range []struct {
		name, line, json string
		fault            Fault
	}{
		{"good", good, "abc", OK},
		{"crlf", "3\t32d153ff\tabc\r\n", "abc", OK},
		{"many cr lf", "3\t32d153ff\tabc\r\n\r\n", "abc", OK},
		{"leading zeros", "0003\t32d153ff\tabc\n", "abc", OK},
		{"tabs in json", "5\t" + hashOf("a\tb\tc") + "\ta\tb\tc\n", "a\tb\tc", OK},
		{"torn", "3\t32d153ff\tabc", "", Torn},
		{"torn empty", "", "", Torn},
		{"torn cr", "3\t32d153ff\tabc\r", "", Torn},
		{"empty line", "\n", "", Malformed},
		{"crlf only", "\r\n", "", Malformed},
		{"two parts", "3\t32d153ff\n", "", Malformed},
		{"one part", "garbage\n", "", Malformed},
		{"empty len", "\t32d153ff\tabc\n", "", Malformed},
		{"empty len empty json", "\t02cc5d05\t\n", "", Malformed},
		{"signed len", "+3\t32d153ff\tabc\n", "", Malformed},
		{"spaced len", " 3\t32d153ff\tabc\n", "", Malformed},
		{"hex len", "0x3\t32d153ff\tabc\n", "", Malformed},
		{"junk after len", "3abc\t32d153ff\tabc\n", "", Malformed},
		{"bom", "\xef\xbb\xbf3\t32d153ff\tabc\n", "", Malformed},
		{"wrong len", "4\t32d153ff\tabc\n", "", Corrupt},
		{"huge len", "99999999999999999999999999999\t32d153ff\tabc\n", "", Corrupt},
		{"huge len wrapping to 3", "18446744073709551619\t32d153ff\tabc\n", "", Corrupt},
		{"upper hash", "3\t32D153FF\tabc\n", "", Corrupt},
		{"short hash", "3\t32d153f\tabc\n", "", Corrupt},
		{"long hash", "3\t32d153ff0\tabc\n", "", Corrupt},
		{"bad hash", "3\t32d153fe\tabc\n", "", Corrupt},
		{"len counts cr", "4\t" + hashOf("abc\r") + "\tabc\r\n", "", Corrupt},
	} {
		json, fault := Queue().Parse([]byte(tc.line))
		if fault != tc.fault || string(json) != tc.json {
			t.Errorf("%s: Parse(%q) = %q, %v; want %q, %v", tc.name, tc.line, json, fault, tc.json, tc.fault)
		}
	}
}

// TestSegLogRules: docs/format/segmentedlog.md §2.4 framing check and §2.6.
func TestSegLogRules(t *testing.T) {
	payload := `{"op":"delete","id":"018bcfe5-6800-7000-8000-000000000002"}`
	good := string(Append(nil, []byte(payload)))
	for _, tc := range []struct {
		name, line string
		fast, full Fault
	}{
		{"good", good, OK, OK},
		{"crlf", strings.TrimSuffix(good, "\n") + "\r\n", OK, OK},
		{"cr cr lf", strings.TrimSuffix(good, "\n") + "\r\r\n", Corrupt, OK},
		{"lf lf", good + "\n", Corrupt, OK},
		{"no newline (2.7)", strings.TrimSuffix(good, "\n"), OK, OK},
		{"leading zero length", "0" + good, OK, OK},
		{"junk after length", strings.Replace(good, "59\t", "59abc\t", 1), OK, OK},
		{"exponent length", strings.Replace(good, "59\t", "5.9e1\t", 1), OK, OK},
		{"spaces before length", strings.Replace(good, "59\t", "  59\t", 1), OK, OK},
		{"plus length", strings.Replace(good, "59\t", "+59\t", 1), OK, OK},
		{"empty length empty json", "\t02cc5d05\t\n", OK, OK},
		{"wrong length", strings.Replace(good, "59\t", "58\t", 1), Corrupt, Corrupt},
		{"word length", strings.Replace(good, "59\t", "abc\t", 1), Corrupt, Corrupt},
		{"huge length", strings.Replace(good, "59\t", "99999999999999999999999\t", 1), Corrupt, Corrupt},
		{"negative length", strings.Replace(good, "59\t", "-59\t", 1), Corrupt, Corrupt},
		{"uppercase checksum", strings.Replace(good, "9727cb3b", "9727CB3B", 1), Corrupt, Corrupt},
		{"short checksum", strings.Replace(good, "9727cb3b", "9727cb3", 1), Corrupt, Corrupt},
		{"bad checksum", strings.Replace(good, "9727cb3b", "9727cb3c", 1), Corrupt, Corrupt},
		{"flipped payload", strings.Replace(good, "delete", "dElete", 1), Corrupt, Corrupt},
		{"one tab", "59\t" + payload + "\n", Malformed, Malformed},
		{"no tab", payload + "\n", Malformed, Malformed},
		{"empty", "", Malformed, Malformed},
		{"newline only", "\n", Malformed, Malformed},
	} {
		if _, f := SegLogFast().Parse([]byte(tc.line)); f != tc.fast {
			t.Errorf("%s: fast = %v, want %v", tc.name, f, tc.fast)
		}
		if _, f := SegLogFull().Parse([]byte(tc.line)); f != tc.full {
			t.Errorf("%s: full = %v, want %v", tc.name, f, tc.full)
		}
	}
}

func TestPHPIntCast(t *testing.T) {
	for in, want := range map[string]int64{
		"101": 101, "0101": 101, "101abc": 101, "1e2": 100, "1.5": 1, " \t12": 12, "+7": 7,
		"-3": -3, "": 0, "abc": 0, "0x1A": 0, ".5": 0, "1e": 1, "99999999999999999999": -1,
		"9223372036854775807": 9223372036854775807, "1e30": -1, "-": 0, "5.": 5,
	} {
		if got := PHPIntCast([]byte(in)); got != want {
			t.Errorf("PHPIntCast(%q) = %d, want %d", in, got, want)
		}
	}
}

// String names a Fault in test failures.
func (f Fault) String() string {
	switch f {
	case OK:
		return "ok"
	case Torn:
		return "torn"
	case Malformed:
		return "malformed"
	case Corrupt:
		return "corrupt"
	}
	return "unknown"
}

// FuzzParse: no rule set panics, the queue rules are the strictest, and
// whatever passes re-frames to a canonical line every rule set accepts.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"113\t308e94c3\t{\"op\":\"enqueue\",\"id\":\"018bcfe5-6800-7000-8000-00000000000a\",\"payload\":{\"task\":\"render\",\"page\":1},\"ts\":1700000000}\n",
		"59\t9727cb3b\t{\"op\":\"delete\",\"id\":\"018bcfe5-6800-7000-8000-000000000002\"}\n",
		"0003\t32d153ff\tabc\r\n",
		"99999999999999999999\t32d153ff\tabc\n",
		"1e2\t\t\xff\xfe",
		"3\t32D153FF\tabc\n",
		"\t\t\n",
		"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		qjson, qf := Queue().Parse(line)
		for _, r := range []Rules{Queue(), SegLogFull(), SegLogFast()} {
			json, fault := r.Parse(line)
			if fault != OK {
				continue
			}
			canon := Append(nil, json)
			for _, r2 := range []Rules{Queue(), SegLogFull(), SegLogFast()} {
				if back, f2 := r2.Parse(canon); f2 != OK || string(back) != string(json) {
					t.Fatalf("canonical line %q rejected by %+v: %v", canon, r2, f2)
				}
			}
		}
		if qf == OK {
			if json, f := SegLogFull().Parse(line); f != OK || string(json) != string(qjson) {
				t.Fatalf("queue accepted %q but the full seglog rules say %v", line, f)
			}
		}
	})
}
