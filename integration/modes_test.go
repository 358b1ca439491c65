package integration

import (
	"os"
	"strings"
	"testing"
)

// mountMode is one way of mounting that the tests of reads run under. A
// read-write mount answers OPEN, and each open file reads through its own
// handle; a read-only one answers no OPEN (fusefs/rawfs.go, mountFS.Open),
// so the kernel sends none and every file is read by its node.
type mountMode struct {
	name  string
	flags []string
}

var readModes = []mountMode{
	{"read-write", nil},
	{"read-only", []string{"--read-only"}},
}

// forEachMode runs test once per mode, as a subtest, with the mode's
// mount flags.
func forEachMode(t *testing.T, test func(t *testing.T, flags []string)) {
	for _, mode := range readModes {
		t.Run(mode.name, func(t *testing.T) { test(t, mode.flags) })
	}
}

// noOpen: with STORHFS_TEST_NO_OPEN=1 every mount of this build runs with
// --no-open (writes without handles, fusefs/nodewrites.go).
var noOpen = os.Getenv("STORHFS_TEST_NO_OPEN") == "1"

// refusedReadOnly reports whether a shell script's output says the file
// system refused it as read-only. Without OPEN the refusal of a write to
// a read-only file comes at its WRITE (EROFS), which dash's builtin echo
// reports only as "echo: I/O error".
func refusedReadOnly(out string) bool {
	return strings.Contains(out, "Read-only file system") || noOpen && strings.Contains(out, "echo: I/O error")
}
