package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// caseSpec is one case directory <corpus>/<engine>/<case>/ (README 1).
type caseSpec struct {
	Dir      string
	Name     string
	Meta     caseMeta
	OpLines  [][]byte // ops.jsonl, one op per line
	Expected [][]byte // results.jsonl, line i = PHP's result of op i
}

// caseMeta is case.json.
type caseMeta struct {
	Ops            int          `json:"ops"`
	Notes          []string     `json:"notes"`
	Before         *treeListing `json:"before"`
	Expected       treeListing  `json:"expected"`
	Normalisations []string     `json:"normalisations"`
}

// treeListing is case.json's before/expected: every directory, every file
// with its size and sha256, and (before only) forced mtimes.
type treeListing struct {
	Dirs   []string            `json:"dirs"`
	Files  map[string]fileInfo `json:"files"`
	Mtimes map[string]int64    `json:"mtimes"`
}

type fileInfo struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// listCases returns the case directory names of <corpus>/<engine>, sorted.
func listCases(engineDir string) ([]string, error) {
	entries, err := os.ReadDir(engineDir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(engineDir, e.Name(), "case.json")); e.IsDir() && err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// loadCase reads case.json, ops.jsonl and results.jsonl of one case and
// checks that they agree with each other.
func loadCase(dir string) (*caseSpec, error) {
	c := &caseSpec{Dir: dir, Name: filepath.Base(dir)}
	raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &c.Meta); err != nil {
		return nil, fmt.Errorf("%s/case.json: %w", dir, err)
	}
	if c.OpLines, err = readLines(filepath.Join(dir, "ops.jsonl")); err != nil {
		return nil, err
	}
	if c.Expected, err = readLines(filepath.Join(dir, "results.jsonl")); err != nil {
		return nil, err
	}
	if len(c.OpLines) != len(c.Expected) {
		return nil, fmt.Errorf("%s: %d ops but %d result lines", dir, len(c.OpLines), len(c.Expected))
	}
	if c.Meta.Ops != 0 && c.Meta.Ops != len(c.OpLines) {
		return nil, fmt.Errorf("%s: case.json says %d ops, ops.jsonl has %d", dir, c.Meta.Ops, len(c.OpLines))
	}
	return c, nil
}

// readLines splits a JSONL file at "\n" (JSON text never holds a raw
// newline); a final newline does not start another line.
func readLines(path string) ([][]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	raw = bytes.TrimSuffix(raw, []byte("\n"))
	if len(raw) == 0 {
		return nil, nil
	}
	return bytes.Split(raw, []byte("\n")), nil
}
