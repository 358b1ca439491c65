package seglog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refState is the plain model of the state index a replay must build:
// raw id -> latest line, counted afterwards.
type refState map[string]location

// refReplay applies the lines of body up to the first one the open-time
// validation rejects (PHP's recovery stops there), one by one.
func refReplay(body []byte, seg int32) (refState, int64) {
	st := refState{}
	var off int64
	for len(body) > 0 {
		n := strings.IndexByte(string(body), '\n') + 1
		if n == 0 {
			n = len(body)
		}
		line := body[:n]
		op, id, _, _, err := validateFast(line)
		if err != nil {
			return st, off
		}
		st[string(id)] = location{seg: seg, off: off, deleted: op == opDelete}
		off += int64(n)
		body = body[n:]
	}
	return st, off
}

func checkReplayState(t *testing.T, body []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "seg-000001.ndjson")
	if err := os.WriteFile(path, body, 0o666); err != nil {
		t.Fatal(err)
	}
	want, validEnd := refReplay(body, 3)
	got := newStateIndex()
	r, err := replaySegment(path, 3, replayRecover, got, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.stats.end != validEnd {
		t.Fatalf("valid end %d, want %d", r.stats.end, validEnd)
	}
	if fi, _ := os.Stat(path); fi.Size() != validEnd {
		t.Fatalf("file truncated to %d, want %d", fi.Size(), validEnd)
	}
	live, deleted := 0, 0
	for id, loc := range want {
		if g, ok := got.lookup([]byte(id)); !ok || g != loc {
			t.Fatalf("id %q: got %+v %v, want %+v", id, g, ok, loc)
		}
		if loc.deleted {
			deleted++
		} else {
			live++
		}
	}
	if len(got.uuids)+len(got.other) != len(want) || got.live != live || got.deleted != deleted {
		t.Fatalf("entries %d live %d deleted %d, want %d %d %d", len(got.uuids)+len(got.other), got.live, got.deleted, len(want), live, deleted)
	}
}

func replaySeedBodies() [][]byte {
	put := func(id string) string {
		return string(AppendLine(nil, []byte(`{"op":"put","id":"`+id+`","data":{"n":1}}`)))
	}
	del := func(id string) string { return string(AppendLine(nil, []byte(`{"op":"delete","id":"`+id+`"}`))) }
	a, b := testID(1), testID(2)
	upper := strings.ToUpper(a)
	foreign := string(AppendLine(nil, []byte(`{"id":"x-1","op":"put","data":[]}`)))
	return [][]byte{
		[]byte(put(a) + put(b) + del(a) + put(a) + del(b)),
		[]byte(put(a) + put(upper) + del(upper) + foreign + put(b)),
		[]byte(put(a) + "120\t0000"),                                       // torn tail
		[]byte(put(a) + "59\t00000000\t" + del(b)[12:] + put(b)),           // corrupt middle line
		[]byte(put(a) + strings.Replace(put(b), "put", "pux", 1) + put(b)), // checksum mismatch
		[]byte(strings.TrimSuffix(put(a), "\n")),                           // unterminated last line
		[]byte(del(a) + del(a) + put(a) + "\r\n"),
	}
}

// The state a replay builds (parseIDKey, apply and its counters) matches
// the plain model on valid, torn, corrupt and mixed-spelling segments.
func TestReplayStateMatchesModel(t *testing.T) {
	for _, body := range replaySeedBodies() {
		checkReplayState(t, body)
	}
}

func FuzzReplayState(f *testing.F) {
	for _, body := range replaySeedBodies() {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkReplayState(t, body) })
}
