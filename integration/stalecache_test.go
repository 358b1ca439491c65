package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A record replaced through the mount while another process keeps reading
// it reads back as stored once the writer's close returned: the reader's
// descriptor of the old file must not put the old content back into the
// pages later opens are served from.
func TestReplacedRecordIsNotServedStale(t *testing.T) {
	requireFuse(t, "cat", "cp", "cmp")
	root := demoRoot(t, 3)
	m := startMount(t, root)
	ids := storedIDs(t, root, "pages")
	id := ids[0]
	rec := m.path("pages", id+".jsonc")
	dir := t.TempDir()
	versions := make([]string, 2)
	for i := range versions {
		versions[i] = filepath.Join(dir, fmt.Sprintf("v%d.jsonc", i))
		pad := strings.Repeat(fmt.Sprint(i), 20000+i*7000)
		writeFile(t, versions[i], `{"id":"`+id+`","data":{"v":`+fmt.Sprint(i)+`,"pad":"`+pad+`"}}`)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reader := exec.CommandContext(ctx, "sh", "-c", "while :; do cat "+rec+" > /dev/null; done")
	if err := reader.Start(); err != nil {
		t.Fatal(err)
	}
	defer reader.Wait()
	defer cancel()

	stale := 0
	for i := 0; i < 40; i++ {
		src := versions[i%2]
		runOK(t, "", "cp", src, rec)
		want := readFile(t, src)
		got, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			stale++
			t.Errorf("round %d: read %d bytes through the mount after cp returned, want the %d just written (read %.60q...)", i, len(got), len(want), got)
		}
		if stored := readFile(t, storedPath(root, "pages", id)); !bytes.Equal(stored, want) {
			t.Fatalf("round %d: the stored record is not what cp wrote", i)
		}
	}
	if stale > 0 {
		t.Errorf("%d of 40 reads after a replacement served old content", stale)
	}
}
