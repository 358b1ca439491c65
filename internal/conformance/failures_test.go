package conformance

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// failureScenarios are cases the harness must FAIL, each with the texts its
// report must contain (and must not contain). They run in a child test
// process, since a failing Run would fail this test binary.
var failureScenarios = map[string]struct {
	mutate  func(c *synthCase, o *Options)
	want    []string
	notWant []string
}{
	"result-mismatch": {
		mutate: func(c *synthCase, o *Options) { c.opsAndResults[5] = `{"id":"x"}` },
		want:   []string{`op 2 {"op":"echo"`, `got:  {"id":"` + recID, `want: {"id":"x"}`, "FAKE CLOSEALL RAN"},
	},
	"error-text-mismatch": {
		mutate: func(c *synthCase, o *Options) {
			c.opsAndResults[7] = `{"error":"Invalid JSONC storage file: /elsewhere"}`
		},
		want: []string{"op 3", `got:  {"error":"Invalid JSONC storage file: <ROOT>/pages/data/ab/x.jsonc"}`},
	},
	"panic-stops-case": {
		mutate: func(c *synthCase, o *Options) {
			c.opsAndResults[4] = `{"op":"boom","collection":"pages"}`
			c.opsAndResults[7] = `{"error":"never compared"}`
		},
		want:    []string{"op 2", "Exec panicked (case stopped): boom in Exec", "FAKE CLOSEALL RAN"},
		notWant: []string{"never compared", "final tree"},
	},
	"tree-mismatch": {
		mutate: func(c *synthCase, o *Options) {
			delete(c.expectedFiles, "probe-mtime")
			c.expectedFiles["pages/data/ab/.old.tmp"] = "other"
			c.expectedFiles["pages/ghost"] = "g"
			c.expectedDirs = append(c.expectedDirs, "pages/ghostdir")
		},
		want: []string{"unexpected file probe-mtime", "file pages/data/ab/.old.tmp differs", "file pages/ghost missing",
			"directory pages/ghostdir/ missing"},
	},
	"quirk-not-allowed": {
		mutate: func(c *synthCase, o *Options) { o.AllowQuirks = []string{"index-path"} },
		want:   []string{`op 18 {"op":"echo","collection":"pages","value":[3],"quirk":"unique-null"}`, "want: [4]"},
	},
	"quirk-twin-differs": {
		mutate: func(c *synthCase, o *Options) {
			c.opsAndResults[34] = `{"op":"echo","collection":"pages","value":[9],"quirk":"index-path","compare_with":16}`
		},
		want: []string{"result differs from our result of its scan twin op 16", "got:  [9]", "want: [1]"},
	},
	"unencodable-result": {
		mutate: func(c *synthCase, o *Options) {
			c.opsAndResults[32] = `{"op":"echo","collection":"pages","value":1e400}`
		},
		want: []string{"op 16", "result cannot be encoded: Inf and NaN cannot be JSON encoded"},
	},
	"mismatch-cap": {
		mutate: func(c *synthCase, o *Options) {
			o.MaxMismatches = 1
			c.opsAndResults[1] = `"a"`
			c.opsAndResults[3] = `"b"`
			c.opsAndResults[7] = `"c"`
		},
		want: []string{"op 0", "2 further mismatches not shown"},
	},
}

func TestHarnessDetectsFailures(t *testing.T) {
	for name, sc := range failureScenarios {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestFailureScenarioChild$", "-test.v")
			cmd.Env = append(os.Environ(), "CONFORMANCE_SCENARIO="+name)
			out, err := cmd.CombinedOutput()
			text := string(out)
			if err == nil {
				t.Fatalf("scenario passed, want failure:\n%s", text)
			}
			for _, w := range sc.want {
				if !strings.Contains(text, w) {
					t.Errorf("report lacks %q:\n%s", w, text)
				}
			}
			for _, w := range sc.notWant {
				if strings.Contains(text, w) {
					t.Errorf("report must not contain %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestFailureScenarioChild is the child side of TestHarnessDetectsFailures.
func TestFailureScenarioChild(t *testing.T) {
	name := os.Getenv("CONFORMANCE_SCENARIO")
	if name == "" {
		t.Skip("child process of TestHarnessDetectsFailures only")
	}
	sc, ok := failureScenarios[name]
	if !ok {
		t.Fatalf("unknown scenario %q", name)
	}
	c := passingCase()
	opts := Options{AllowQuirks: []string{"index-path", "unique-null"}}
	sc.mutate(&c, &opts)
	corpus := t.TempDir()
	writeCorpus(t, corpus, "fake", []synthCase{c})
	t.Setenv("STORH_CONFORMANCE_DIR", corpus)
	Run(t, "fake", newFakeExec, opts)
}
