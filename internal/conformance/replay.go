package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/phpjson"
)

// closeAllTimeout bounds Executor.CloseAll: after a panic an engine may
// hold its own mutex forever, and one stuck case must not hang the run.
const closeAllTimeout = 30 * time.Second

// runCase replays one case in a fresh storage root (README section 2).
func runCase(t *testing.T, c *caseSpec, newExec func(root string) Executor, opts Options) {
	root := t.TempDir() // absolute, no trailing slash
	if err := buildBefore(c, root); err != nil {
		t.Fatalf("building before/: %v", err)
	}
	exec := newExec(root)
	env := &Env{Root: root, T: t}
	closed := false
	closeOnce := func() {
		if !closed {
			closed = true
			closeAll(t, exec)
		}
	}
	defer closeOnce() // also runs when Exec calls t.FailNow

	if !replayOps(t, c, exec, env, opts) {
		return
	}
	closeOnce()
	compareTree(t, c, root)
}

// replayOps runs every op and compares its result; false means the case
// was stopped (a panic or an undecodable op line).
func replayOps(t *testing.T, c *caseSpec, exec Executor, env *Env, opts Options) bool {
	ours := make([][]byte, len(c.OpLines)) // our encoded results, for compare_with
	shown, hidden := 0, 0
	report := func(format string, args ...any) {
		t.Helper()
		if shown < opts.maxMismatches() {
			shown++
			t.Errorf(format, args...)
		} else {
			hidden++
		}
	}
	defer func() {
		if hidden > 0 {
			t.Errorf("%d further mismatches not shown (Options.MaxMismatches)", hidden)
		}
	}()

	for i, line := range c.OpLines {
		op, name, err := decodeOp(line)
		if err != nil {
			t.Errorf("op %d: cannot decode op line %s: %v", i, clip(line, 300), err)
			return false
		}
		var result phpjson.Value
		var opErr error
		if isHarnessOp(name) {
			result, opErr = execHarnessOp(name, op, env.Root)
		} else {
			var panicMsg string
			result, opErr, panicMsg = safeExec(exec, op, env)
			if panicMsg != "" {
				t.Errorf("op %d %s: Exec panicked (case stopped): %s", i, clip(line, 300), panicMsg)
				return false
			}
		}
		if opErr != nil {
			result = errorValue(opErr)
		}
		// No depth limit: PHP's runner encodes results with depth 100000
		// (a stream of records 511 levels deep is 513 deep).
		got, err := phpjson.AppendEncodeDepth(nil, newNormaliser(env.Root).value(result), 0)
		if err != nil {
			report("op %d %s: result cannot be encoded: %v (value %#v)", i, clip(line, 300), err, result)
			continue
		}
		ours[i] = got
		want := c.Expected[i]
		tag, _ := stringMember(op, "quirk")
		if !opts.quirkAllowed(tag) {
			if !bytes.Equal(got, want) {
				report("op %d %s\n%s", i, clip(line, 300), describeDiff(got, want))
			}
			continue
		}
		// An allowed quirk: PHP parity is optional; the scan twin is the contract.
		if !bytes.Equal(got, want) {
			t.Logf("op %d (allowed quirk %q) differs from PHP:\n%s", i, tag, describeDiff(got, want))
		}
		if j, ok := compareWith(op); ok {
			switch {
			case j < 0 || j >= i:
				report("op %d: compare_with %d does not name an earlier op", i, j)
			case ours[j] == nil:
				report("op %d: compare_with op %d has no result of ours to compare with", i, j)
			case !bytes.Equal(got, ours[j]):
				report("op %d %s (quirk %q): result differs from our result of its scan twin op %d\n%s",
					i, clip(line, 300), tag, j, describeDiff(got, ours[j]))
			}
		}
	}
	return true
}

// decodeOp decodes one op line without a depth limit.
func decodeOp(line []byte) (*phpjson.Array, string, error) {
	v, err := phpjson.DecodeDepth(line, 0)
	if err != nil {
		return nil, "", err
	}
	op, ok := v.(*phpjson.Array)
	if !ok {
		return nil, "", errors.New("op line is not an object")
	}
	name, ok := stringMember(op, "op")
	if !ok {
		return nil, "", errors.New(`op line has no string "op"`)
	}
	return op, name, nil
}

// compareWith returns the op's compare_with index.
func compareWith(op *phpjson.Array) (int, bool) {
	v, ok := op.Lookup("compare_with")
	if !ok {
		return 0, false
	}
	j, ok := v.(int64)
	return int(j), ok
}

// safeExec runs Exec, turning a panic into panicMsg (value and stack).
func safeExec(x Executor, op *phpjson.Array, env *Env) (v phpjson.Value, err error, panicMsg string) {
	defer func() {
		if r := recover(); r != nil {
			panicMsg = fmt.Sprintf("%v\n%s", r, debug.Stack())
		}
	}()
	v, err = x.Exec(op, env)
	return v, err, ""
}

// closeAll runs CloseAll with panic recovery and a timeout.
func closeAll(t *testing.T, x Executor) {
	done := make(chan string, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Sprintf("CloseAll panicked: %v\n%s", r, debug.Stack())
			}
		}()
		x.CloseAll()
		done <- ""
	}()
	select {
	case msg := <-done:
		if msg != "" {
			t.Error(msg)
		}
	case <-time.After(closeAllTimeout):
		t.Errorf("CloseAll did not return within %s", closeAllTimeout)
	}
}

// errorValue is the result of an op that threw: {"error": <message>}.
func errorValue(err error) *phpjson.Array {
	a := phpjson.NewArray(1)
	a.SetString("error", err.Error())
	return a
}
