package queue

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"storhfs/core/phpjson"
	"storhfs/core/uuidv7"
)

// slowEnqueueLines is the reference: the line framing every batch used
// before lines.go (appendPayloadJSON + appendEventLine per job).
func slowEnqueueLines(t *testing.T, ids []string, payloads []*phpjson.Array, ts int64) ([]byte, error) {
	t.Helper()
	var lines, scratch, payloadJSON []byte
	for i, id := range ids {
		var err error
		if payloadJSON, err = appendPayloadJSON(payloadJSON[:0], payloads[i]); err != nil {
			return nil, err
		}
		lines, scratch = appendEventLine(lines, scratch, OpEnqueue, id, false, payloadJSON, ts)
	}
	return lines, nil
}

// hostilePayloads covers escapes, unicode, big numbers, deep nesting, int
// keys, empty arrays and lines whose LEN crosses 1-2-3-4-5 digits.
func hostilePayloads() []*phpjson.Array {
	deep := phpjson.NewArray(1)
	for i := 0; i < 300; i++ {
		outer := phpjson.NewArray(1)
		outer.SetString("d", deep)
		deep = outer
	}
	list := phpjson.NewList(int64(1), "two", 3.5, nil, true, false, phpjson.NewArray(0))
	intKeys := phpjson.NewArray(2)
	intKeys.Set(phpjson.IntKey(0), "zero")
	intKeys.SetString("name", "n")
	return []*phpjson.Array{
		nil,
		phpjson.NewArray(0),
		obj("a", ""),
		obj("s", "quote\" backslash\\ slash/ tab\t nl\n cr\r nul\x00 bell\x07 del\x7f"),
		obj("u", "é ü 日本 😀 \u2028\u2029 \ufeff", "ключ", "значение"),
		obj("big", int64(math.MaxInt64), "neg", int64(math.MinInt64), "f", 1e300, "z", 0.0, "nz", -0.0, "tiny", 5e-324),
		obj("list", list, "nested", obj("x", obj("y", phpjson.NewList()))),
		intKeys,
		deep,
		obj("pad", strings.Repeat("x", 30)),
		obj("pad", strings.Repeat("x", 900)),
		obj("pad", strings.Repeat("y", 9000)),
		obj("pad", strings.Repeat("z", 99990)),
		obj("a", ""),
	}
}

func TestEnqueueLinesMatchSlowFraming(t *testing.T) {
	payloads := hostilePayloads()
	// Run the list forwards and backwards so LEN's digit guess both grows
	// and shrinks between neighbours.
	for _, reverse := range []bool{false, true} {
		dir := t.TempDir()
		q := openTest(t, dir, &testClock{now: 1700000000})
		var jobs []Job
		var ids []string
		var ps []*phpjson.Array
		for i := range payloads {
			p := payloads[i]
			if reverse {
				p = payloads[len(payloads)-1-i]
			}
			id := uuidv7.MinForTimestampMs(int64(1700000000000 + i))
			jobs = append(jobs, Job{ID: id, Payload: p})
			ids = append(ids, id)
			ps = append(ps, p)
		}
		if _, err := q.EnqueueMany(jobs); err != nil {
			t.Fatal(err)
		}
		want, err := slowEnqueueLines(t, ids, ps, 1700000000)
		if err != nil {
			t.Fatal(err)
		}
		if got := logBytes(t, dir); got != string(want) {
			t.Fatalf("reverse=%v: batch lines differ from the slow framing:\n%.400q\nwant\n%.400q", reverse, got, want)
		}
	}
}

func TestEndLineDigitBoundaries(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 9999, 10000, 123456} {
		json := bytes.Repeat([]byte{'a'}, n)
		want := AppendGuarded([]byte("prefix"), json)
		for guess := 1; guess <= 7; guess++ {
			dst, start := beginLine([]byte("prefix"), guess)
			dst = append(dst, json...)
			got, digits := endLine(dst, start, guess)
			if !bytes.Equal(got, want) || digits != decimalLen(n) {
				t.Fatalf("n=%d guess=%d: %.60q (digits %d), want %.60q", n, guess, got, digits, want)
			}
		}
	}
}

func TestIDLinesMatchSlowFraming(t *testing.T) {
	ids := []string{idA, strings.ToUpper(idA), "018bcfe5-6801-7fff-bfff-ffffffffffff"}
	for _, op := range []Op{OpClaim, OpComplete, OpRequeue, OpPurge} {
		for _, done := range []bool{false, true} {
			for _, ts := range []int64{0, 7, 1700000000, -1, math.MaxInt64, math.MinInt64} {
				lines := newIDLines(op, done, ts)
				var got []byte
				var want, scratch []byte
				for _, id := range ids {
					got = lines.add(got, id)
					want, scratch = appendEventLine(want, scratch, op, id, op == OpComplete && done, nil, ts)
				}
				// An id of another length (never held by the state) takes the slow path.
				got = lines.add(got, "short")
				want, _ = appendEventLine(want, scratch, op, "short", op == OpComplete && done, nil, ts)
				if !bytes.Equal(got, want) {
					t.Fatalf("%v done=%v ts=%d:\n%q\nwant\n%q", op, done, ts, got, want)
				}
			}
		}
	}
}

// EnqueueMany reports the first failing job's error, id before payload,
// exactly as when ids were resolved job by job, and writes nothing.
func TestEnqueueManyErrorOrder(t *testing.T) {
	tooDeep := tooDeepPayload()
	badUTF8 := obj("s", "\xff")
	for _, tc := range []struct {
		name string
		jobs []Job
		want error
	}{
		{"payload before later id", []Job{{Payload: tooDeep}, {ID: "nope"}}, ErrPayloadTooDeep},
		{"id before own payload", []Job{{}, {ID: "nope", Payload: badUTF8}}, uuidv7.ErrInvalid},
		{"utf8 payload", []Job{{}, {Payload: badUTF8}}, phpjson.ErrUTF8},
	} {
		dir := t.TempDir()
		q := openTest(t, dir, &testClock{now: 1700000000})
		if _, err := q.EnqueueMany(tc.jobs); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if got := logBytes(t, dir); got != "" {
			t.Errorf("%s: wrote %q", tc.name, got)
		}
	}
}

// Generated ids of a batch are valid, lowercase, strictly increasing and
// continue the generator's monotonic state.
func TestEnqueueManyGeneratedIDs(t *testing.T) {
	q := openTest(t, t.TempDir(), &testClock{now: 1700000000})
	first, err := q.Enqueue(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	jobs := make([]Job, 500)
	jobs[7].ID = idA
	ids, err := q.EnqueueMany(jobs)
	if err != nil {
		t.Fatal(err)
	}
	prev := first
	for i, id := range ids {
		if i == 7 {
			if id != idA {
				t.Fatalf("explicit id replaced by %q", id)
			}
			continue
		}
		if !uuidv7.Valid(id) || id != strings.ToLower(id) || id <= prev {
			t.Fatalf("id %d %q after %q", i, id, prev)
		}
		prev = id
	}
	mustCounts(t, q, Counts{Pending: 501})
}

func FuzzEnqueueLine(f *testing.F) {
	f.Add([]byte(`{"task":"render","page":1}`))
	f.Add([]byte(`{"s":"\u0000\u001f\"\\/\u2028é😀","n":-9223372036854775808,"f":1.0e300}`))
	f.Add([]byte(`{"a":[[[[[[{"b":{}}]]]]]],"0":1}`))
	f.Add([]byte(`[1,2,3]`))
	f.Add([]byte(`{"big":123456789012345678901234567890}`))
	f.Fuzz(func(t *testing.T, payloadJSON []byte) {
		v, err := phpjson.Decode(payloadJSON)
		if err != nil {
			return
		}
		p, ok := v.(*phpjson.Array)
		if !ok {
			return
		}
		want, werr := slowEnqueueLines(t, []string{idA}, []*phpjson.Array{p}, 1700000000)
		dst, start := beginLine([]byte("x"), 2)
		dst = append(dst, `{"op":"enqueue","id":"`+idA+`","payload":`...)
		dst, gerr := appendPayloadJSON(dst, p)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("errors differ: %v vs %v", gerr, werr)
		}
		if gerr != nil {
			return
		}
		dst = append(dst, `,"ts":1700000000}`...)
		got, _ := endLine(dst, start, 2)
		if !bytes.Equal(got[1:], want) {
			t.Fatalf("%q\nwant\n%q", got[1:], want)
		}
	})
}
