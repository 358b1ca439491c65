package queue

import (
	"reflect"
	"strings"
	"testing"
)

// checkIDEvent fails when decodeIDEvent accepts json but DecodeEvent
// disagrees.
func checkIDEvent(t *testing.T, json string) bool {
	t.Helper()
	fast, ok := decodeIDEvent([]byte(json))
	if !ok {
		return false
	}
	slow, err := DecodeEvent([]byte(json))
	if err != nil || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s: fast %+v, DecodeEvent %+v, %v", json, fast, slow, err)
	}
	return true
}

func TestDecodeIDEvent(t *testing.T) {
	for _, op := range []Op{OpClaim, OpComplete, OpRequeue, OpPurge} {
		for _, done := range []bool{false, true} {
			for _, ts := range []int64{0, 1, -1, 1700000000, 999999999999999999, -999999999999999999} {
				for _, id := range []string{idA, strings.ToUpper(idA)} {
					json := string(appendEventJSON(nil, op, id, done, nil, ts))
					if !checkIDEvent(t, json) {
						t.Errorf("canonical %s not taken", json)
					}
				}
			}
		}
	}
	for _, json := range []string{
		`{"op":"claim","id":"` + idA + `","ts":1000000000000000000}`, // 19 digits: generic
		`{"op":"claim","id":"` + idA + `","ts":-0}`,
		`{"op":"claim","id":"` + idA + `","ts":01}`,
		`{"op":"claim","id":"` + idA + `","ts":1.0}`,
		`{"op":"claim","id":"` + idA + `","ts":}`,
		`{"op":"claim","id":"` + idA + `","ts":1} `,
		`{"op":"claim","id":"` + idA + `","ts":1`,
		`{"op":"claim","id":"` + idA + `"}`,
		`{"op":"claim","id":"` + idA[:35] + `g","ts":1}`,
		`{"op":"claim","id":"` + idA + `x","ts":1}`,
		`{"op":"claim","id":"` + idA + `","done":true,"ts":1}`,
		`{"op":"complete","id":"` + idA + `","ts":1}`,
		`{"op":"complete","id":"` + idA + `","done":1,"ts":1}`,
		`{"op":"enqueue","id":"` + idA + `","ts":1}`,
		`{"op":"claim2","id":"` + idA + `","ts":1}`,
		`{"op":"claim","id":"` + idA + `","ts":1,"ts":2}`,
		`{"op":"claim","id":"\u0030` + idA[1:] + `","ts":1}`,
	} {
		if checkIDEvent(t, json) {
			t.Errorf("non-canonical %s taken", json)
		}
	}
}

func FuzzDecodeIDEvent(f *testing.F) {
	for _, op := range []Op{OpClaim, OpComplete, OpRequeue, OpPurge} {
		f.Add(string(appendEventJSON(nil, op, idA, true, nil, 1700000000)))
	}
	f.Add(`{"op":"claim","id":"` + idA + `","ts":-0}`)
	f.Fuzz(func(t *testing.T, json string) { checkIDEvent(t, json) })
}
