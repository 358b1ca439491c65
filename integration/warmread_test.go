package integration

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// fuseRequests lists the FUSE requests (opcode and node) in a --debug
// mount log, in order: "OPEN n5", "READ n5", "LOOKUP n2", ...
func fuseRequests(log string) []string {
	var reqs []string
	for _, m := range debugRequest.FindAllStringSubmatch(log, -1) {
		reqs = append(reqs, m[1]+" "+m[2])
	}
	return reqs
}

var debugRequest = regexp.MustCompile(`rx \d+: ([A-Z_]+) (n\d+)`)

// TestReadOnlyWarmFilesCostNoRequest: on a read-only mount, a record
// read once is read again (cat, grep) without a single request reaching
// the mount: no OPEN, FLUSH or RELEASE (the mount answered the first OPEN
// and FLUSH with ENOSYS), no READ (the kernel keeps the pages), and no
// LOOKUP or GETATTR while the kernel's caches live. The first read of
// another record still reaches it, and comes with no handle.
func TestReadOnlyWarmFilesCostNoRequest(t *testing.T) {
	requireFuse(t, "cat", "grep")
	root := demoRoot(t, 5)
	m := startMount(t, root, "--read-only", "--debug")
	ids := storedIDs(t, root, "pages")
	first, second := m.path("pages", ids[0]+".jsonc"), m.path("pages", ids[1]+".jsonc")
	want := string(readFile(t, storedPath(root, "pages", ids[0])))
	if got := runOK(t, "", "cat", first); got != want {
		t.Fatalf("cat %s = %q, want the stored record %q", ids[0], got, want)
	}
	before := len(fuseRequests(m.log.String()))
	for range 3 {
		if got := runOK(t, "", "cat", first); got != want {
			t.Fatalf("warm cat = %q, want %q", got, want)
		}
		runOK(t, "", "grep", "-c", "id", first)
	}
	// (A LOOKUP or GETATTR may come once the kernel's entry and attribute
	// caches expire: they last 1 s on this mount.)
	var warm []string
	for _, req := range fuseRequests(m.log.String())[before:] {
		if !strings.HasPrefix(req, "LOOKUP ") && !strings.HasPrefix(req, "GETATTR ") {
			warm = append(warm, req)
		}
	}
	if len(warm) > 0 {
		t.Errorf("warm reads of one record sent %d requests to the mount, want none: %v", len(warm), warm)
	}
	before = len(fuseRequests(m.log.String()))
	if got, want := runOK(t, "", "cat", second), string(readFile(t, storedPath(root, "pages", ids[1]))); got != want {
		t.Fatalf("cat %s = %q, want %q", ids[1], got, want)
	}
	cold := strings.Join(fuseRequests(m.log.String())[before:], ", ")
	for _, op := range []string{"OPEN ", "FLUSH ", "RELEASE "} {
		if strings.Contains(cold, op) {
			t.Errorf("the first read of another record sent %s: %s", strings.TrimSpace(op), cold)
		}
	}
	if !strings.Contains(cold, "READ ") {
		t.Errorf("the first read of another record sent no READ: %s", cold)
	}
	if _, err := os.Stat(second); err != nil {
		t.Fatal(err)
	}
}
