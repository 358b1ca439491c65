package integration

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestWarmFilesCostNoRequest: a record read once is read again (cat,
// grep) long after the 1 s the kernel used to cache it, and no request but
// the opens of a read-write mount reaches the mount: no LOOKUP (the watcher
// sees every change, so the kernel keeps entries long); on a read-only
// mount no GETATTR, no READ (it keeps the pages) and no OPEN, FLUSH or
// RELEASE either (the mount answered the first OPEN and FLUSH with
// ENOSYS). A read-write mount sees OPEN and RELEASE (it must see writers)
// and nothing else: the kernel keeps the pages of the record's node, which
// stands for one stored version (fusefs/recordversion.go). The first read
// of another record still reaches it; on a read-only mount without a handle.
func TestWarmFilesCostNoRequest(t *testing.T) {
	forEachMode(t, func(t *testing.T, flags []string) {
		requireFuse(t, "cat", "grep")
		readOnly := len(flags) > 0
		// Without OPEN (--no-open), a read-write mount sees the FLUSH of
		// each close instead.
		allowed := map[string]bool{"OPEN": !readOnly && !noOpen, "RELEASE": !readOnly && !noOpen, "FLUSH": !readOnly && noOpen}
		root := demoRoot(t, 5)
		m := startMount(t, root, append(flags, "--debug")...)
		ids := storedIDs(t, root, "pages")
		first, second := m.path("pages", ids[0]+".jsonc"), m.path("pages", ids[1]+".jsonc")
		want := string(readFile(t, storedPath(root, "pages", ids[0])))
		if got := runOK(t, "", "cat", first); got != want {
			t.Fatalf("cat %s = %q, want the stored record %q", ids[0], got, want)
		}
		// A machine where others drop the kernel's caches (drop_caches,
		// memory pressure: FORGET in the log, from the warming read on)
		// gets another try.
		var warm []string
		for try := 0; try < 3; try++ {
			mark := len(fuseRequests(m.log.String()))
			runOK(t, "", "cat", first)
			var forgot bool
			warm, forgot = warmRequests(t, m, mark, first, want, allowed)
			if len(warm) == 0 || !forgot {
				break
			}
		}
		if len(warm) > 0 {
			t.Errorf("warm reads of one record sent %d requests to the mount, want none: %v", len(warm), warm)
		}
		before := len(fuseRequests(m.log.String()))
		if got, want := runOK(t, "", "cat", second), string(readFile(t, storedPath(root, "pages", ids[1]))); got != want {
			t.Fatalf("cat %s = %q, want %q", ids[1], got, want)
		}
		cold := strings.Join(fuseRequests(m.log.String())[before:], ", ")
		if !strings.Contains(cold, "READ ") {
			t.Errorf("the first read of another record sent no READ: %s", cold)
		}
		if readOnly && (strings.Contains(cold, "OPEN ") || strings.Contains(cold, "FLUSH ") || strings.Contains(cold, "RELEASE ")) {
			t.Errorf("the first read of another record sent an OPEN, FLUSH or RELEASE: %s", cold)
		}
	})
}

// warmRequests waits past the 1 s the kernel used to cache records, reads
// file (cat, grep) three times and returns the requests this sent beyond
// the allowed ones, and whether the kernel forgot nodes since request
// number mark.
func warmRequests(t *testing.T, m *mount, mark int, file, want string, allowed map[string]bool) (warm []string, forgot bool) {
	t.Helper()
	time.Sleep(1200 * time.Millisecond)
	before := len(fuseRequests(m.log.String()))
	for _, req := range fuseRequests(m.log.String())[mark:before] {
		forgot = forgot || strings.Contains(req, "FORGET")
	}
	for range 3 {
		if got := runOK(t, "", "cat", file); got != want {
			t.Fatalf("warm cat = %q, want %q", got, want)
		}
		runOK(t, "", "grep", "-c", "id", file)
	}
	var getattrs []string
	for _, req := range fuseRequests(m.log.String())[before:] {
		// The collection's own entry (LOOKUP of "pages" in the root,
		// n1) keeps the 1 s timeout; a GETATTR may come once after a
		// READ (the kernel then refreshes the atime it showed).
		op, node, _ := strings.Cut(req, " ")
		if op == "GETATTR" && !slices.Contains(getattrs, req) {
			getattrs = append(getattrs, req)
			continue
		}
		forgot = forgot || strings.HasSuffix(op, "FORGET")
		if !allowed[op] && node != "n1" && !strings.HasSuffix(op, "FORGET") {
			warm = append(warm, req)
		}
	}
	return warm, forgot
}

// TestWarmListingCostsNoReaddir: where the watcher sees every change, the
// kernel keeps a collection's listing (FOPEN_CACHE_DIR) and its entries
// and attributes for the long timeout, so a warm `ls -l` sends no READDIR,
// READDIRPLUS, LOOKUP of a record or GETATTR of one, long after the 1 s
// the kernel used to cache them: only the directory's open and release
// (and its own attributes). A listing read from the kernel's cache is no
// longer dropped after the entries were looked up (ls -l): they are still
// cached too.
func TestWarmListingCostsNoReaddir(t *testing.T) {
	forEachMode(t, func(t *testing.T, flags []string) {
		requireFuse(t, "ls")
		root := demoRoot(t, 5)
		m := startMount(t, root, append(flags, "--debug")...)
		dir := m.path("pages")
		want := runOK(t, "", "ls", "-l", dir)
		var warm []string
		for try := 0; try < 3; try++ { // others may drop the kernel's caches (FORGET)
			mark := len(fuseRequests(m.log.String()))
			runOK(t, "", "ls", "-l", dir)
			runOK(t, "", "ls", "-l", dir) // the listing is in the kernel's cache now
			time.Sleep(1200 * time.Millisecond)
			before := len(fuseRequests(m.log.String()))
			for range 2 {
				if got := runOK(t, "", "ls", "-l", dir); got != want {
					t.Fatalf("warm ls -l =\n%s\nwant\n%s", got, want)
				}
			}
			warm = nil
			var forgot bool
			getattrs := map[string]bool{}
			for i, req := range fuseRequests(m.log.String())[mark:] {
				op, node, _ := strings.Cut(req, " ")
				forgot = forgot || strings.HasSuffix(op, "FORGET")
				switch {
				case i < before-mark: // the warming listings
				case op == "GETATTR":
					getattrs[node] = true // the folder's own, or a record's
				case op == "READDIR" || op == "READDIRPLUS" || op == "LOOKUP" && node != "n1":
					warm = append(warm, req)
				}
			}
			if len(getattrs) > 1 {
				warm = append(warm, fmt.Sprintf("GETATTR of %d nodes", len(getattrs)))
			}
			if len(warm) == 0 || !forgot {
				break
			}
		}
		if len(warm) > 0 {
			t.Errorf("warm ls -l sent requests beyond the folder's open and release: %v", warm)
		}
	})
}
