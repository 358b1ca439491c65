package procid

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestOfSelfAndThread(t *testing.T) {
	self, err := Of(os.Getpid())
	if err != nil || self.PID != os.Getpid() || !self.Alive() {
		t.Fatalf("Of(self) = %+v, %v; alive %v", self, err, self.Alive())
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	thread, err := Of(syscall.Gettid())
	if err != nil || thread != self {
		t.Errorf("Of(this thread %d) = %+v, %v; want the process %+v", syscall.Gettid(), thread, err, self)
	}
}

func TestExitedProcessIsNotAlive(t *testing.T) {
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep(1): %v", err)
	}
	id, err := Of(cmd.Process.Pid)
	if err != nil || !id.Alive() {
		t.Fatalf("Of(child) = %+v, %v", id, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if id.Alive() {
		t.Errorf("%+v alive after it exited", id)
	}
	reused := ID{PID: os.Getpid(), Start: id.Start + 1}
	if self, _ := Of(os.Getpid()); self.Start != reused.Start && reused.Alive() {
		t.Errorf("another start time of a live pid counted as alive")
	}
	if (ID{}).Alive() {
		t.Error("the zero ID is alive")
	}
	if _, err := Of(0); err == nil {
		t.Error("Of(0) (a kernel thread's request) succeeded")
	}
}

func TestParseStat(t *testing.T) {
	good := []byte("42 (a) b) (c) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 12345 1000 10 18446744073709551615")
	state, start, err := parseStat(good)
	if err != nil || state != 'S' || start != 12345 {
		t.Errorf("parseStat = %c %d %v; want S 12345", state, start, err)
	}
	for _, bad := range []string{"", "42 (x", "42 (x) S 1 2", "42 (x) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 notanumber 1", "42 (x) SS 1 42 42 0 -1 4 1 0 0 0 1 2 0 0 20 0 1 0 5 1"} {
		if _, _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("parseStat(%q) succeeded", bad)
		}
	}
}

func TestTgidOf(t *testing.T) {
	if pid, err := tgidOf([]byte("Name:\tx\nTgid:\t77\nPid:\t78\n")); err != nil || pid != 77 {
		t.Errorf("tgidOf = %d, %v", pid, err)
	}
	for _, bad := range []string{"", "Name: x\n", "Tgid:\tx\n"} {
		if _, err := tgidOf([]byte(bad)); err == nil {
			t.Errorf("tgidOf(%q) succeeded", bad)
		}
	}
}

// FuzzParseStat: any /proc/<pid>/stat text parses or fails cleanly, and a
// parsed start time is the 20th field after the last ')'.
func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (a) b) (c) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 12345 1000 10"))
	f.Add([]byte("1 (init) R 0 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 7 0 0"))
	f.Add([]byte("7 ()) Z"))
	f.Fuzz(func(t *testing.T, stat []byte) {
		state, start, err := parseStat(stat)
		if err != nil {
			return
		}
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 20 || len(fields[0]) != 1 || fields[0][0] != state {
			t.Fatalf("parseStat(%q) = %c %d from %d fields", stat, state, start, len(fields))
		}
		if want, err := strconv.ParseUint(fields[19], 10, 64); err != nil || want != start {
			t.Errorf("parseStat(%q) start = %d, want %d (%v)", stat, start, want, err)
		}
	})
}
