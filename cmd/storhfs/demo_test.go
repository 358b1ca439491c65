package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A demo with many records draws its bar only on a terminal: through a
// pipe stderr stays empty.
func TestDemoNoProgressOnNonTerminal(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	r := runCLI(t, "", "demo", "--records", "3000", root)
	if r.code != 0 || r.stderr != "" {
		t.Errorf("storhfs demo: exit %d, stderr %q", r.code, r.stderr)
	}
	if p := startCountProgress(nil, "x", 10, nil); p != nil {
		t.Error("startCountProgress without a stderr returned a bar")
	}
}

func TestRunCountProgressDraws(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tty")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := runCountProgress(f, "writing demo records", demoRecords(300), func() int64 { return 120 })
	time.Sleep(3 * progressTick)
	p.Finish()
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "writing demo records") || !strings.Contains(string(b), "120/550") {
		t.Errorf("progress drew %q", b)
	}
}
