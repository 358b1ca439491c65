package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// figures maps a row key (the PHP row or the Go benchmark name) to its
// time in microseconds.
type figures map[string]float64

// runPHP runs one pass of the engine's script (RUNS=1) in a new scratch
// directory under base, removed afterwards as the Go test binaries remove
// theirs, so both sides' file creations follow a like deletion.
func runPHP(e engine, base string) (figures, error) {
	dir, err := os.MkdirTemp(base, "php-"+e.name+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out, err := command("php", e.script, dir, "1")
	if err != nil {
		return nil, fmt.Errorf("php %s: %w", e.script, err)
	}
	return parsePHP(out)
}

// parsePHP reads the script's JSON lines {"engine","row","us","unit"}.
func parsePHP(out []byte) (figures, error) {
	f := figures{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var line struct {
			Row string  `json:"row"`
			US  float64 `json:"us"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, fmt.Errorf("php output %q: %w", sc.Text(), err)
		}
		f[line.Row] = line.US
	}
	return f, nil
}

// runGo runs each benchmark group of the engine once (-test.count 1) with
// the compiled test binary, TMPDIR a new directory under base.
func runGo(e engine, testBin, base string) (figures, error) {
	dir, err := os.MkdirTemp(base, "go-"+e.name+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	f := figures{}
	for _, g := range e.groups {
		cmd := exec.Command(testBin, "-test.run", "^$", "-test.bench", g.pattern,
			"-test.benchtime", g.benchtime, "-test.count", "1")
		cmd.Dir = e.pkg // as go test does: the package's directory
		cmd.Env = append(os.Environ(), "TMPDIR="+dir)
		out, err := run(cmd)
		if err != nil {
			return nil, fmt.Errorf("%s -test.bench %s: %w", filepath.Base(testBin), g.pattern, err)
		}
		for name, us := range parseBench(out) {
			f[name] = us
		}
	}
	return f, nil
}

// parseBench reads `go test -bench` result lines. A row's figure is its
// per-record or per-job metric when the benchmark reports one, else ns/op.
func parseBench(out []byte) figures {
	f := figures{}
	for _, line := range strings.Split(string(out), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(fields[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i] // the GOMAXPROCS suffix
		}
		metrics := map[string]float64{}
		for i := 2; i+1 < len(fields); i += 2 {
			if v, err := strconv.ParseFloat(fields[i], 64); err == nil {
				metrics[fields[i+1]] = v
			}
		}
		switch {
		case metrics["us/record"] > 0:
			f[name] = metrics["us/record"]
		case metrics["us/job"] > 0:
			f[name] = metrics["us/job"]
		case metrics["ns/op"] > 0:
			f[name] = metrics["ns/op"] / 1000
		}
	}
	return f
}

func command(name string, args ...string) ([]byte, error) {
	return run(exec.Command(name, args...))
}

// run returns the command's stdout; on failure the error carries its stderr.
func run(cmd *exec.Cmd) ([]byte, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w: %s%s", err, stderr.String(), out)
	}
	return out, nil
}
