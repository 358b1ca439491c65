package fsutil

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// The test binary doubles as a helper process (a second process for lock
// and resource-limit tests), selected by FSUTIL_HELPER.
func TestMain(m *testing.M) {
	switch os.Getenv("FSUTIL_HELPER") {
	case "":
		os.Exit(m.Run())
	case "trylock":
		os.Exit(helperTryLock(os.Getenv("FSUTIL_PATH")))
	case "efbig":
		os.Exit(helperEFBIG(os.Getenv("FSUTIL_PATH")))
	}
	os.Exit(99)
}

// helperTryLock exits 0 if it could take LOCK_EX|LOCK_NB on path, 3 if the
// lock is held elsewhere, 1 on other errors.
func helperTryLock(path string) int {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return 1
	}
	defer f.Close()
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, unix.EWOULDBLOCK):
		return 3
	}
	return 1
}

// helperEFBIG writes 100 bytes durably under RLIMIT_FSIZE = 10 bytes (the
// write fails with EFBIG; Go ignores SIGXFSZ) and prints the error text.
func helperEFBIG(final string) int {
	lim := unix.Rlimit{Cur: 10, Max: 10}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Println("setrlimit:", err)
		return 1
	}
	w := NewWriter("/unused")
	err := w.WriteFileDurable(final, make([]byte, 100))
	fmt.Print(err)
	if err == nil {
		return 1
	}
	return 0
}

// runHelper runs this test binary as a helper and returns its exit code and stdout.
func runHelper(t *testing.T, mode, path string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FSUTIL_HELPER="+mode, "FSUTIL_PATH="+path)
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatalf("helper %s: %v", mode, err)
	}
	return 0, string(out)
}
