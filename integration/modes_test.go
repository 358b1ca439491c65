package integration

import "testing"

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
