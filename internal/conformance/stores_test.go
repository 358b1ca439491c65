package conformance

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// fakeStore counts its Close calls; closeErr is what Close returns.
type fakeStore struct {
	coll     string
	closed   int
	closeErr error
}

func (s *fakeStore) Close() error { s.closed++; return s.closeErr }

// storeEngine opens fakeStores (failing for collection "broken") and
// answers every other op with "<op>@<collection>".
type storeEngine struct {
	opened []*fakeStore
}

func (e *storeEngine) open(coll string, op *phpjson.Array) (*fakeStore, error) {
	if coll == "broken" {
		return nil, errors.New("Cannot open " + coll)
	}
	s := &fakeStore{coll: coll}
	if OpString(op, "close_error") != "" {
		s.closeErr = errors.New(OpString(op, "close_error"))
	}
	e.opened = append(e.opened, s)
	return s, nil
}

func (e *storeEngine) run(s *fakeStore, name string, _ *phpjson.Array) (phpjson.Value, error) {
	return name + "@" + s.coll, nil
}

func TestStoresDispatch(t *testing.T) {
	steps := []struct {
		op   string
		want string // result, or "error: <message>"
	}{
		{`{"op":"get","collection":"a"}`, `error: executor: collection "a" is not open`},
		{`{"op":"close","collection":"a"}`, `error: executor: collection "a" is not open`},
		{`{"op":"open","collection":"a"}`, `<nil>`},
		{`{"op":"open","collection":"a"}`, `error: executor: collection "a" is already open`},
		{`{"op":"get","collection":"a"}`, `get@a`},
		{`{"op":"open","collection":"broken"}`, `error: Cannot open broken`},
		{`{"op":"get","collection":"broken"}`, `error: executor: collection "broken" is not open`},
		{`{"op":"open","collection":"b","close_error":"Close failed"}`, `<nil>`},
		{`{"op":"put","collection":"b"}`, `put@b`},
		{`{"op":"close","collection":"b"}`, `error: Close failed`},
		{`{"op":"put","collection":"b"}`, `error: executor: collection "b" is not open`},
		{`{"op":"close","collection":"a"}`, `<nil>`},
		{`{"op":"get","collection":"a"}`, `error: executor: collection "a" is not open`},
		{`{"op":"open","collection":"a"}`, `<nil>`}, // reopening after close is allowed
		{`{"op":"open"}`, `<nil>`},                  // collection "" is a name like any
		{`{"op":"stats"}`, `stats@`},
	}
	var stores Stores[*fakeStore]
	e := &storeEngine{}
	for i, s := range steps {
		v, err := stores.Dispatch(mustOp(t, s.op), e.open, e.run)
		got := "<nil>"
		if err != nil {
			got = "error: " + err.Error()
		} else if v != nil {
			got = v.(string)
		}
		if got != s.want {
			t.Errorf("step %d %s: got %s, want %s", i, s.op, got, s.want)
		}
	}
	var closes []string
	for _, s := range e.opened {
		closes = append(closes, s.coll+":"+strings.Repeat("x", s.closed))
	}
	if got := strings.Join(closes, " "); got != "a:x b:x a: :" {
		t.Errorf("closes before CloseAll: %s", got)
	}

	stores.CloseAll()
	stores.CloseAll() // nothing left to close
	closes = closes[:0]
	for _, s := range e.opened {
		closes = append(closes, s.coll+":"+strings.Repeat("x", s.closed))
	}
	sort.Strings(closes)
	if got := strings.Join(closes, " "); got != ":x a:x a:x b:x" {
		t.Errorf("closes after CloseAll: %s", got)
	}
	if _, err := stores.Dispatch(mustOp(t, `{"op":"get","collection":"a"}`), e.open, e.run); err == nil {
		t.Error("a store is still open after CloseAll")
	}
}

func TestZeroStoresCloseAll(t *testing.T) {
	var stores Stores[*fakeStore]
	stores.CloseAll() // must not panic on the zero value
}
