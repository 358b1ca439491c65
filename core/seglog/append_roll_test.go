package seglog

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"storhfs/core/phpjson"
)

// appendUntilRolling adds puts of ids first, first+1, ... until a roll is
// pending and returns the next id number.
func appendUntilRolling(t *testing.T, ap *appender, first int) int {
	t.Helper()
	for n := first; n < first+100; n++ {
		if err := ap.addPut(testID(n), dataN(n)); err != nil {
			t.Fatal(err)
		}
		if ap.rolling != nil {
			return n + 1
		}
	}
	t.Fatal("no roll started")
	return 0
}

// While a roll is pending, the new segment is empty and the manifest on
// disk still names the old active segment: lines encoded meanwhile are
// written only after the manifest that makes their segment active.
func TestPendingRollWritesNothingEarly(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 400)
	defer l.Close()
	dir := root + "/events"
	err := l.withLock(func() error {
		ap, err := l.beginAppend()
		if err != nil {
			return err
		}
		next := appendUntilRolling(t, ap, 1)
		newSeg := dir + "/segments/" + ap.rolling.plan.newName
		for n := next; n < next+2; n++ {
			if err := ap.addPut(testID(n), dataN(n)); err != nil {
				return err
			}
		}
		if ap.rolling == nil {
			t.Fatal("the roll finished before a write needed it")
		}
		if fi, err := os.Stat(newSeg); err == nil && fi.Size() != 0 {
			t.Fatalf("new segment holds %d bytes before the manifest", fi.Size())
		}
		m, err := readManifest(dir)
		if err != nil {
			return err
		}
		if m.activeFile() != firstSegment {
			t.Fatalf("manifest names %s while the roll is pending", m.activeFile())
		}
		if err := ap.flush(); err != nil {
			return err
		}
		if m, _ := readManifest(dir); m.activeFile() != ap.a.name || len(m.sealed) != 1 {
			t.Fatalf("after the roll the manifest names %s, %d sealed", m.activeFile(), len(m.sealed))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A writer that ignored the lock and appended to the new segment while the
// roll was pending: the lines encoded meanwhile go after its line, as they
// would have had the roll finished first, and every record reads back.
func TestPendingRollRebasesAfterForeignLine(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 400)
	dir := root + "/events"
	foreignID := testID(900)
	var last int
	err := l.withLock(func() error {
		ap, err := l.beginAppend()
		if err != nil {
			return err
		}
		next := appendUntilRolling(t, ap, 1)
		newSeg := dir + "/segments/" + ap.rolling.plan.newName
		add := func(n int) error {
			last = n
			return ap.addPut(testID(n), dataN(n))
		}
		for n := next; n < next+2; n++ { // fits the empty segment
			if err := add(n); err != nil {
				return err
			}
		}
		if ap.rolling == nil {
			t.Fatal("the roll finished early")
		}
		line := AppendLine(nil, []byte(putPrefix+foreignID+dataInfix+`{"foreign":true}}`))
		if err := os.WriteFile(newSeg, line, 0o666); err != nil {
			return err
		}
		for n := next + 2; n < next+9; n++ { // rebased, then further rolls
			if err := add(n); err != nil {
				return err
			}
		}
		if err := ap.flush(); err != nil {
			return err
		}
		b, err := os.ReadFile(newSeg)
		if err != nil {
			return err
		}
		if !bytes.HasPrefix(b, line) {
			t.Fatalf("foreign line overwritten: %q", b[:len(line)])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(l *Log, when string) {
		for n := 1; n <= last; n++ {
			r, err := l.Get(testID(n))
			if err != nil || r == nil {
				t.Fatalf("%s: record %d: %v %v", when, n, r, err)
			}
			if v, _ := r.Data.Lookup("n"); v != int64(n) {
				t.Fatalf("%s: record %d reads %v", when, n, v)
			}
		}
	}
	check(l, "same instance")
	l.Close()
	l2 := openTest(t, root, 400)
	defer l2.Close()
	check(l2, "reopened")
	if r, err := l2.Get(foreignID); err != nil || r == nil {
		t.Fatalf("foreign record: %v %v", r, err)
	}
}

// An append stream that fails while a roll is pending still completes the
// roll, as it did when rolls finished before encoding went on: the sealed
// segment is in the manifest, its records are durable, and the lines
// encoded after the roll started are not written.
func TestAppendStreamErrorFinishesPendingRoll(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 400)
	defer l.Close()
	dir := root + "/events"
	boom := errors.New("boom")
	line := AppendLine(nil, []byte(putPrefix+testID(1)+dataInfix+`{"n":1,"pad":"`+strings.Repeat("p", 40)+`"}}`))
	sealed := (400 + len(line) - 1) / len(line) // lines until the first roll
	n := 0
	_, err := l.AppendStream(func() (phpjson.Value, bool, error) {
		if n == sealed+1 {
			return nil, false, boom // one line encoded while the roll runs
		}
		n++
		r := phpjson.NewArray(2)
		r.SetString("id", testID(n))
		r.SetString("data", dataN(n))
		return r, true, nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.sealed) != 1 || m.sealed[0].file != firstSegment {
		t.Fatalf("sealed after the failed stream: %+v", m.sealed)
	}
	if fi, err := os.Stat(dir + "/segments/" + m.activeFile()); err != nil || fi.Size() != 0 {
		t.Fatalf("new active segment: %v %v", fi, err)
	}
	l2 := openTest(t, root, 400)
	defer l2.Close()
	if l2.state.live != sealed {
		t.Fatalf("%d live records after reopen, want %d", l2.state.live, sealed)
	}
}
