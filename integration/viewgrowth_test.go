package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/seglog"
)

// TestViewGrowthShowsNoStalePage: while a log grows by small appends
// (its end almost never on a page boundary), readers cat and tail its
// views and stat them in a loop. No read may hold a NUL byte: that is a
// page the kernel cached while the view ended inside it (zero-filled past
// that end) and kept after it learnt the longer size.
func TestViewGrowthShowsNoStalePage(t *testing.T) { forEachMode(t, testViewGrowthShowsNoStalePage) }

func testViewGrowthShowsNoStalePage(t *testing.T, flags []string) {
	requireFuse(t, "sh", "cat", "tail", "stat", "tr", "wc")
	root := demoRoot(t, 1)
	l := openLog(t, root, "audit", seglog.Options{MaxSegmentBytes: 16 << 10})
	defer l.Close()
	appendRows(t, l, 0, 5)
	m := startMount(t, root, flags...)
	dir := m.path("audit")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tmp := t.TempDir()
	// Each reader loop exits 3 after copying the first read holding a NUL
	// byte to its .bad file.
	const noNUL = `[ "$(tr -dc '\000' < "$2" | wc -c)" = 0 ] || { cp "$2" "$2.bad"; exit 3; }`
	catActiveSegment := `while :; do for f in "$1"/segments/*; do :; done; cat "$f" > "$2"; ` + noNUL + `; done`
	var loops []*exec.Cmd
	for i, script := range []string{
		catActiveSegment, catActiveSegment, catActiveSegment,
		`while :; do tail -c 3000 "$1"/records.ndjson > "$2"; ` + noNUL + `; done`,
		`while :; do for f in "$1"/segments/*; do :; done; stat -c %s "$f" > /dev/null; done`,
	} {
		cmd := exec.CommandContext(ctx, "sh", "-c", script, "sh", dir, filepath.Join(tmp, fmt.Sprintf("read-%d", i)))
		mustOK(t, cmd.Start())
		loops = append(loops, cmd)
	}
	stopLoops := func() {
		for _, c := range loops {
			c.Process.Kill()
			c.Wait()
		}
		loops = nil
	}
	defer stopLoops()

	appended := 5
	for deadline := time.Now().Add(12 * time.Second); time.Now().Before(deadline); appended++ {
		appendRows(t, l, appended, 1)
		time.Sleep(3 * time.Millisecond)
	}
	stopLoops()
	bad, _ := filepath.Glob(filepath.Join(tmp, "*.bad"))
	for _, b := range bad {
		content, _ := os.ReadFile(b)
		i := strings.IndexByte(string(content), 0)
		t.Errorf("a view read holds NUL bytes (%s): %d bytes, NUL from byte %d: %q", filepath.Base(b), len(content), i, content[max(0, i-60):min(len(content), i+20)])
	}
	t.Logf("%d rows appended", appended)
}
