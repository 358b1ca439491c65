package queue

import (
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/guard"
	"github.com/storhfs/storhfs/core/phpjson"
)

const idA = "018bcfe5-6800-7000-8000-00000000000a"

func TestDecodeEvent(t *testing.T) {
	deep := func(levels int) string { // event nesting = levels (the event object included)
		return `{"op":"enqueue","id":"` + idA + `","payload":` + strings.Repeat("[", levels-1) + strings.Repeat("]", levels-1) + `}`
	}
	for _, tc := range []struct {
		name, json string
		want       string // "" = ok, else the error text
		check      func(t *testing.T, ev Event)
	}{
		{"enqueue", `{"op":"enqueue","id":"` + idA + `","payload":{"a":1},"ts":5}`, "", func(t *testing.T, ev Event) {
			if ev.Op != OpEnqueue || ev.ID != idA || !ev.HasTS || ev.TS != 5 || encode(t, ev.Payload) != `{"a":1}` {
				t.Errorf("got %+v", ev)
			}
		}},
		{"spaced, extra keys, dup key", `{ "op" : "claim", "id":"x", "id" : "` + idA + `", "extra":true }`, "", func(t *testing.T, ev Event) {
			if ev.Op != OpClaim || ev.ID != idA || ev.HasTS {
				t.Errorf("got %+v", ev)
			}
		}},
		{"uppercase id kept", `{"op":"claim","id":"` + strings.ToUpper(idA) + `"}`, "", func(t *testing.T, ev Event) {
			if ev.ID != strings.ToUpper(idA) {
				t.Errorf("id %q", ev.ID)
			}
		}},
		{"float ts is now", `{"op":"claim","id":"` + idA + `","ts":5.0}`, "", func(t *testing.T, ev Event) {
			if ev.HasTS {
				t.Error("float ts taken")
			}
		}},
		{"string ts is now", `{"op":"claim","id":"` + idA + `","ts":"5"}`, "", func(t *testing.T, ev Event) {
			if ev.HasTS {
				t.Error("string ts taken")
			}
		}},
		{"huge ts is now", `{"op":"claim","id":"` + idA + `","ts":99999999999999999999}`, "", func(t *testing.T, ev Event) {
			if ev.HasTS {
				t.Error("float ts taken")
			}
		}},
		{"done true", `{"op":"complete","id":"` + idA + `","done":true}`, "", func(t *testing.T, ev Event) {
			if !ev.Done {
				t.Error("done lost")
			}
		}},
		{"done 1 is false", `{"op":"complete","id":"` + idA + `","done":1}`, "", func(t *testing.T, ev Event) {
			if ev.Done {
				t.Error("done 1 taken as true")
			}
		}},
		{"list payload", `{"op":"enqueue","id":"` + idA + `","payload":[1,2]}`, "", func(t *testing.T, ev Event) {
			if encode(t, ev.Payload) != `[]` {
				t.Errorf("payload %s", encode(t, ev.Payload))
			}
		}},
		{"int keys dropped", `{"op":"enqueue","id":"` + idA + `","payload":{"0":"a","01":"b","-1":"c","name":"d"}}`, "", func(t *testing.T, ev Event) {
			if encode(t, ev.Payload) != `{"01":"b","name":"d"}` {
				t.Errorf("payload %s", encode(t, ev.Payload))
			}
		}},
		{"scalar payload", `{"op":"enqueue","id":"` + idA + `","payload":"x"}`, "", func(t *testing.T, ev Event) {
			if ev.Payload == nil || ev.Payload.Len() != 0 {
				t.Error("scalar payload kept")
			}
		}},
		{"missing payload", `{"op":"enqueue","id":"` + idA + `"}`, "", func(t *testing.T, ev Event) {
			if ev.Payload == nil || ev.Payload.Len() != 0 {
				t.Error("missing payload not empty")
			}
		}},
		{"depth 511", deep(511), "", nil},
		{"depth 512", deep(512), "Maximum stack depth exceeded", nil},
		{"empty object", `{}`, "Invalid log queue event.", nil},
		{"empty list", `[]`, "Invalid log queue event.", nil},
		{"list", `[1]`, "Log queue event must be an object.", nil},
		{"scalar", `1`, "Log queue event must be an object.", nil},
		{"null", `null`, "Log queue event must be an object.", nil},
		{"int key", `{"0":"zero","op":"claim","id":"` + idA + `"}`, "Log queue event must be an object.", nil},
		{"negative int key", `{"-5":1,"op":"claim","id":"` + idA + `"}`, "Log queue event must be an object.", nil},
		{"non-canonical int key ok", `{"01":1,"op":"claim","id":"` + idA + `"}`, "", nil},
		{"missing op", `{"id":"` + idA + `"}`, "Invalid log queue event.", nil},
		{"empty op", `{"op":"","id":"` + idA + `"}`, "Invalid log queue event.", nil},
		{"numeric op", `{"op":1,"id":"` + idA + `"}`, "Invalid log queue event.", nil},
		{"bad id", `{"op":"claim","id":"nope"}`, "Invalid log queue event.", nil},
		{"id with LF", `{"op":"claim","id":"` + idA + `\n"}`, "Invalid log queue event.", nil},
		{"bad id before unknown op", `{"op":"nope","id":"x"}`, "Invalid log queue event.", nil},
		{"unknown op", `{"op":"nope","id":"` + idA + `"}`, "Unsupported log queue event: nope", nil},
		{"op case", `{"op":"Enqueue","id":"` + idA + `"}`, "Unsupported log queue event: Enqueue", nil},
		{"syntax", `{"op":`, "Syntax error", nil},
		{"empty", ``, "Syntax error", nil},
		{"bad utf8", "{\"op\":\"claim\",\"id\":\"" + idA + "\",\"x\":\"\xff\"}", "Malformed UTF-8 characters, possibly incorrectly encoded", nil},
		{"lone surrogate", `{"op":"claim","id":"` + idA + `","x":"\ud800"}`, "Single unpaired UTF-16 surrogate in unicode escape", nil},
		{"control char", "{\"op\":\"claim\",\"id\":\"" + idA + "\",\"x\":\"\x01\"}", "Control character error, possibly incorrectly encoded", nil},
		{"bom", "\xef\xbb\xbf{}", "Syntax error", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := DecodeEvent([]byte(tc.json))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("DecodeEvent error %q, want %q", got, tc.want)
			}
			if err == nil && tc.check != nil {
				tc.check(t, ev)
			}
		})
	}
}

func encode(t *testing.T, v phpjson.Value) string {
	t.Helper()
	b, err := phpjson.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppendEventJSON(t *testing.T) {
	for _, tc := range []struct {
		op      Op
		done    bool
		payload string
		want    string
	}{
		{OpEnqueue, false, `{"task":"render","page":1}`, `{"op":"enqueue","id":"` + idA + `","payload":{"task":"render","page":1},"ts":1700000000}`},
		{OpClaim, false, "", `{"op":"claim","id":"` + idA + `","ts":1700000000}`},
		{OpComplete, true, "", `{"op":"complete","id":"` + idA + `","done":true,"ts":1700000000}`},
		{OpComplete, false, "", `{"op":"complete","id":"` + idA + `","done":false,"ts":1700000000}`},
		{OpRequeue, false, "", `{"op":"requeue","id":"` + idA + `","ts":1700000000}`},
		{OpPurge, false, "", `{"op":"purge","id":"` + idA + `","ts":1700000000}`},
	} {
		got := string(appendEventJSON(nil, tc.op, idA, tc.done, []byte(tc.payload), 1700000000))
		if got != tc.want {
			t.Errorf("%v: %s, want %s", tc.op, got, tc.want)
		}
		if _, err := DecodeEvent([]byte(got)); err != nil {
			t.Errorf("%v: written event does not decode: %v", tc.op, err)
		}
	}
}

func FuzzDecodeEvent(f *testing.F) {
	for _, line := range strings.SplitAfter(workedExample, "\n") {
		if json, fault := guard.Queue().Parse([]byte(line)); fault == guard.OK {
			f.Add(json)
		}
	}
	f.Add([]byte(`{"0":"zero","op":"claim","id":"` + idA + `"}`))
	f.Add([]byte(`{"op":"complete","id":"` + idA + `","done":1,"ts":1e999}`))
	f.Add([]byte(`{"op":"enqueue","id":"` + idA + `","payload":{"a":"\ud83d\ude00","b":[{}]}}`))
	f.Fuzz(func(t *testing.T, json []byte) {
		ev, err := DecodeEvent(json)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if ev.Op < OpEnqueue || ev.Op > OpPurge || ev.ID == "" {
			t.Fatalf("accepted event without op/id: %+v", ev)
		}
		if ev.Op == OpEnqueue && ev.Payload == nil {
			t.Fatal("enqueue without payload")
		}
		// A re-written event of the same kind must decode again.
		var payload []byte
		if ev.Op == OpEnqueue {
			var err error
			if payload, err = appendPayloadJSON(nil, ev.Payload); err != nil {
				return // INF payloads cannot be written (PHP cannot either)
			}
		}
		again := appendEventJSON(nil, ev.Op, ev.ID, ev.Done, payload, ev.TS)
		if _, err := DecodeEvent(again); err != nil {
			t.Fatalf("re-written %s does not decode: %v", again, err)
		}
	})
}
