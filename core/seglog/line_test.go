package seglog

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// docs/format/segmentedlog.md §2.1 vectors (PHP hash('xxh32', ...)).
func TestLineVectors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "0\t02cc5d05\t\n"},
		{"abc", "3\t32d153ff\tabc\n"},
		{`{"op":"delete","id":"018bcfe5-6800-7000-8000-000000000002"}`, "59\t9727cb3b\t"},
		{`{"op":"delete","id":"0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"}`, "59\t86fa4371\t"},
		{`{"op":"put","id":"0190a1b2-c3d5-7000-9000-000000000001","data":[]}`, "66\taf64dde4\t"},
		{`{"op":"put","id":"018bcfe5-6800-7000-8000-000000000001","data":{"n":21}}`, "72\t09e4fd6a\t"},
		{`{"op":"put","id":"0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b","data":{"type":"page.saved","pageId":42,"ratio":1.0,"path":"/a/b","title":"Grüße"}}`, "141\t30fb832a\t"},
	} {
		got := string(AppendLine(nil, []byte(tc.in)))
		if !strings.HasPrefix(got, tc.want) || !strings.HasSuffix(got, tc.in+"\n") {
			t.Errorf("AppendLine(%q) = %q, want prefix %q", tc.in, got, tc.want)
		}
		if p, err := frameFast([]byte(got)); err != nil || string(p) != tc.in {
			t.Errorf("parseFrame(%q) = %q, %v", got, p, err)
		}
	}
}

// TestParseFrame: the fast validator's framing faults carry the
// SegmentedLog texts (the rules themselves are tested in core/guard).
func TestParseFrame(t *testing.T) {
	good := string(AppendLine(nil, []byte(`{"op":"delete","id":"018bcfe5-6800-7000-8000-000000000002"}`)))
	payload := good[strings.LastIndexByte(good[:20], '\t')+1 : len(good)-1]
	for _, tc := range []struct {
		name, line string
		want       error
	}{
		{"good", good, nil},
		{"crlf", strings.TrimSuffix(good, "\n") + "\r\n", nil},
		{"no newline", strings.TrimSuffix(good, "\n"), nil},
		{"leading zero length", "0" + good, nil},
		{"junk after length", strings.Replace(good, "59\t", "59abc\t", 1), nil},
		{"exponent length", strings.Replace(good, "59\t", "5.9e1\t", 1), nil},
		{"spaces before length", strings.Replace(good, "59\t", "  59\t", 1), nil},
		{"wrong length", strings.Replace(good, "59\t", "58\t", 1), ErrCorruptLine},
		{"huge length", strings.Replace(good, "59\t", "99999999999999999999999\t", 1), ErrCorruptLine},
		{"negative length", strings.Replace(good, "59\t", "-59\t", 1), ErrCorruptLine},
		{"uppercase checksum", strings.Replace(good, "9727cb3b", "9727CB3B", 1), ErrCorruptLine},
		{"short checksum", strings.Replace(good, "9727cb3b", "9727cb3", 1), ErrCorruptLine},
		{"bad checksum", strings.Replace(good, "9727cb3b", "9727cb3c", 1), ErrCorruptLine},
		{"flipped payload", strings.Replace(good, "delete", "dElete", 1), ErrCorruptLine},
		{"one tab", "59\t" + payload + "\n", ErrMalformedLine},
		{"no tab", payload + "\n", ErrMalformedLine},
		{"empty", "", ErrMalformedLine},
		{"newline only", "\n", ErrMalformedLine},
	} {
		_, err := frameFast([]byte(tc.line))
		if !errors.Is(err, tc.want) || (err != nil && err.Error() != tc.want.Error()) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestEnvelopes(t *testing.T) {
	id := "018bcfe5-6800-7000-8000-000000000001"
	for _, tc := range []struct {
		payload string
		op      opKind
		wantErr error
	}{
		{`{"op":"put","id":"` + id + `","data":{"n":1}}`, opPut, nil},
		{`{"op":"delete","id":"` + id + `"}`, opDelete, nil},
		{`{"id":"` + id + `","op":"put","data":1,"x":2}`, opPut, nil},
		{`{"op":"touch","id":"` + id + `"}`, opOther, nil},
		{`{"op":"put"}`, 0, ErrNoEnvelope},
		{`{"op":1,"id":"x"}`, 0, ErrNoEnvelope},
		{`[1,2]`, 0, ErrNoEnvelope},
		{`"str"`, 0, ErrNoEnvelope},
		{`{"op":"put","id":"x","data":`, 0, errAny},
		{"{\"op\":\"put\",\"id\":\"\xff\"}", 0, errAny},
	} {
		op, _, err := lineID([]byte(tc.payload))
		switch {
		case tc.wantErr == errAny && err == nil:
			t.Errorf("%s: no error", tc.payload)
		case tc.wantErr != errAny && !errors.Is(err, tc.wantErr):
			t.Errorf("%s: err = %v, want %v", tc.payload, err, tc.wantErr)
		case tc.wantErr == nil && op != tc.op:
			t.Errorf("%s: op = %d, want %d", tc.payload, op, tc.op)
		}
	}
}

var errAny = errors.New("any error")

// FuzzLine feeds arbitrary bytes to every line parser: they must never
// panic, and a line they accept must re-frame to itself.
func FuzzLine(f *testing.F) {
	id := "018bcfe5-6800-7000-8000-000000000001"
	for _, p := range []string{
		`{"op":"put","id":"` + id + `","data":{"n":1}}`,
		`{"op":"delete","id":"` + id + `"}`,
		`{"op":"put","id":"` + id + `","data":[]}`,
		`{"id":"` + id + `","op":"x"}`,
	} {
		f.Add(AppendLine(nil, []byte(p)))
	}
	f.Add([]byte("12\tdeadbeef\t{\"op\":\"put\"\n"))
	f.Add([]byte("999999999999\t00000000\t{}\n"))
	f.Add([]byte("3\t32D153FF\tabc\n"))
	f.Add([]byte("\t\t\n"))
	f.Add([]byte("1e2\t\t\xff\xfe"))
	f.Fuzz(func(t *testing.T, line []byte) {
		op, id, _, plen, err := validateFast(line)
		if err == nil {
			payload, perr := frameFast(line)
			if perr != nil || len(payload) != plen {
				t.Fatalf("validateFast accepted %q but parseFrame says %v", line, perr)
			}
			if op == 0 || id == nil {
				t.Fatalf("accepted line without op/id: %q", line)
			}
			canon := AppendLine(nil, payload)
			if _, _, _, _, err := validateFast(canon); err != nil {
				t.Fatalf("re-framed line rejected: %q: %v", canon, err)
			}
		}
		if payload, err := frameFull(line); err == nil {
			full, ferr := decodeEnvelope(payload)
			if op, idB, data, ok := fastEnvelope(payload); ok && op == opPut {
				if env, ok := decodeCanonicalPut(idB, data); ok {
					if ferr != nil || env.id != full.id || full.op != opPut || !phpjson.Identical(env.data, full.data) {
						t.Fatalf("canonical put decode of %q disagrees with the full decode (%v)", payload, ferr)
					}
				}
			}
		} else if err != ErrMalformedLine && err != ErrCorruptLine {
			t.Fatalf("frameFull(%q) = %v", line, err)
		}
		sc := newLineScanner(bytes.NewReader(line), 0, -1, nil)
		total := 0
		for {
			l, _, ok := sc.line()
			if !ok {
				break
			}
			total += len(l)
		}
		if total != len(line) {
			t.Fatalf("scanner returned %d of %d bytes", total, len(line))
		}
	})
}

// decodeCanonicalPut must agree with the full decode whenever it answers.
func TestDecodeCanonicalPut(t *testing.T) {
	id := "018bcfe5-6800-7000-8000-000000000001"
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tc := range []struct {
		name, payload string
		fast          bool
	}{
		{"object", `{"op":"put","id":"` + id + `","data":{"n":1,"s":"x\u00e9","f":1.0}}`, true},
		{"list", `{"op":"put","id":"` + id + `","data":[1,2]}`, true},
		{"scalar", `{"op":"put","id":"` + id + `","data":"str"}`, true},
		{"spaced", `{"op":"put","id":"` + id + `","data": {"a" : 1} }`, true},
		{"duplicate data", `{"op":"put","id":"` + id + `","data":{},"data":{"b":2}}`, false},
		{"trailing id", `{"op":"put","id":"` + id + `","data":{},"id":"x"}`, false},
		{"broken data", `{"op":"put","id":"` + id + `","data":{"a":}`, false},
		{"escaped id", `{"op":"put","id":"018bcfe5-6800-7000-8000-00\u00300001","data":{}}`, false},
		{"invalid utf8 id", "{\"op\":\"put\",\"id\":\"018bcfe5-6800-7000-8000-0000000000\xff\xfe\",\"data\":{}}", false},
		{"depth 510 in data", `{"op":"put","id":"` + id + `","data":` + deep(510) + `}`, true},
		{"depth 511 in data", `{"op":"put","id":"` + id + `","data":` + deep(511) + `}`, false},
	} {
		op, idB, data, ok := fastEnvelope([]byte(tc.payload))
		if !ok || op != opPut {
			t.Fatalf("%s: not a fast put", tc.name)
		}
		got, fast := decodeCanonicalPut(idB, data)
		if fast != tc.fast {
			t.Errorf("%s: fast = %v, want %v", tc.name, fast, tc.fast)
		}
		full, err := decodeEnvelope([]byte(tc.payload))
		if !fast {
			continue
		}
		if err != nil || full.id != got.id || full.op != got.op || !phpjson.Identical(full.data, got.data) {
			t.Errorf("%s: fast %+v, full %+v (%v)", tc.name, got, full, err)
		}
	}
}

// lineID returns the id and op of a valid payload: the fast path when it
// applies, else the full decode.
func lineID(payload []byte) (opKind, string, error) {
	if op, id, _, ok := fastEnvelope(payload); ok {
		return op, string(id), nil
	}
	env, err := decodeEnvelope(payload)
	if err != nil {
		return 0, "", err
	}
	return env.op, env.id, nil
}
