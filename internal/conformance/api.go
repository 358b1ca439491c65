// Package conformance replays the golden PHP corpus (testdata/conformance,
// see testdata/conformance/README.md) against a Go engine. Each engine package supplies an
// Executor and calls Run from its own TestConformance.
package conformance

import (
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// Executor runs the engine-specific ops of one case.
type Executor interface {
	// Exec runs one op line (decoded with phpjson, no depth limit) against
	// storage root env.Root and returns the result value before
	// normalisation. A storh exception is returned as err (its Error() is
	// the message put in {"error":...}). Exec must not panic (a panic is
	// recovered and reported as a failure of that op).
	Exec(op *phpjson.Array, env *Env) (phpjson.Value, error)
	// CloseAll closes every store still open; called at the end of every
	// case, also after a failure.
	CloseAll()
}

// Env is what an Executor needs to know about the running case.
type Env struct {
	Root string // absolute storage root, no trailing slash
	T    *testing.T
}

// Options tunes Run.
type Options struct {
	// AllowQuirks lists quirk tags (README section 8) whose PHP result we
	// do not reproduce: a mismatch on such an op is logged, not failed.
	// When the op has compare_with, its result must then equal our own
	// result of op compare_with (the scan twin, the normative semantics).
	AllowQuirks []string
	// MaxMismatches caps the result mismatches reported per case (further
	// ones are counted, not printed); 0 means 20.
	MaxMismatches int
}
