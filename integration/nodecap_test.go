package integration

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestRecordNodeCapMakesTheKernelForget: past --max-record-nodes the mount
// has the kernel forget its oldest record entries (without memory
// pressure, which would be the only other reason for a FORGET here), and
// listings and reads stay exact while it does.
func TestRecordNodeCapMakesTheKernelForget(t *testing.T) {
	requireFuse(t, "ls")
	const records, limit = 1200, 100
	root := demoRoot(t, records)
	m := startMount(t, root, "--debug", "--max-record-nodes", fmt.Sprint(limit))
	coll := m.path("pages")

	for pass := 0; pass < 2; pass++ {
		lines := strings.Split(strings.TrimSpace(runOK(t, "", "ls", "-l", coll)), "\n")
		if got := len(lines) - 1; got != records { // the "total" line
			t.Fatalf("pass %d: ls -l listed %d records, want %d", pass, got, records)
		}
	}
	eventually(t, "the kernel forgetting records past the cap", func() bool {
		return strings.Count(m.log.String(), "FORGET n") >= records-2*limit
	})
	for _, id := range storedIDs(t, root, "pages") {
		if got, want := readFile(t, coll+"/"+id+".jsonc"), readFile(t, storedPath(root, "pages", id)); !bytes.Equal(got, want) {
			t.Fatalf("record %s reads %q through the mount, stored %q", id, got, want)
		}
	}
}
