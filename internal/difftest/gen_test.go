package difftest

import (
	"slices"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// A seed always gives the same sequence (a divergence is reproduced from
// its seed alone), different seeds give different ones, and every line is
// one JSON object with a string "op" (deep values included).
func TestGeneratorsAreDeterministicJSON(t *testing.T) {
	for engine, generate := range generators {
		for seed := uint64(1); seed <= 30; seed++ {
			a, b := generate(seed, 40), generate(seed, 40)
			if !slices.Equal(a, b) {
				t.Fatalf("%s seed %d: two runs differ", engine, seed)
			}
			if len(a) < 40 {
				t.Fatalf("%s seed %d: %d ops, want at least 40", engine, seed, len(a))
			}
			for i, line := range a {
				if strings.Contains(line, "\n") {
					t.Fatalf("%s seed %d op %d: raw newline in line", engine, seed, i)
				}
				v, err := phpjson.DecodeDepth([]byte(line), 0)
				if err != nil {
					t.Fatalf("%s seed %d op %d: %v: %.200s", engine, seed, i, err, line)
				}
				op, ok := v.(*phpjson.Array)
				if !ok {
					t.Fatalf("%s seed %d op %d: not an object", engine, seed, i)
				}
				if name, ok := op.Lookup("op"); !ok || name == "" {
					t.Fatalf("%s seed %d op %d: no op name", engine, seed, i)
				}
			}
		}
		if slices.Equal(generate(1, 40), generate(2, 40)) {
			t.Errorf("%s: seeds 1 and 2 give the same ops", engine)
		}
	}
}
