package integration

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/fusectl"
)

// TestUnmountCommand: `storhfs unmount` unmounts a mount and its process
// exits; it refuses what is not a storhfs mount.
func TestUnmountCommand(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 3)
	k := startKillable(t, root)
	runOK(t, "", storhfsBin, "unmount", k.dir)
	if !k.exited(exitBound) {
		t.Fatalf("mount process still running %v after storhfs unmount", exitBound)
	}
	if isMounted(k.dir) {
		t.Errorf("%s still mounted", k.dir)
	}
	if out := runFails(t, "", storhfsBin, "unmount", k.dir); !strings.Contains(out, "not mounted") {
		t.Errorf("unmount of an unmounted folder: %q, want it to say not mounted", out)
	}
	if out := runFails(t, "", storhfsBin, "unmount", "--force", "/"); !strings.Contains(out, "not a storhfs mount") {
		t.Errorf("unmount --force /: %q, want a refusal naming the mount type", out)
	}
}

// TestUnmountForceRecoversAHungMount: with the mount process stopped
// (SIGSTOP), a reader of the mount hangs; `storhfs unmount --force` aborts
// the FUSE connection, the reader gets an error, and the mount point is a
// plain folder again. The watchdog leaves a stopped (live) mount alone.
func TestUnmountForceRecoversAHungMount(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 3)
	k := startKillable(t, root)
	proc := k.cmd.Process
	if err := proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Signal(syscall.SIGCONT) })

	ctx, cancel := context.WithTimeout(context.Background(), 2*exitBound)
	defer cancel()
	reader := exec.CommandContext(ctx, "ls", "-l", k.path("pages"))
	if err := reader.Start(); err != nil {
		t.Fatal(err)
	}
	readerDone := make(chan error, 1)
	go func() { readerDone <- reader.Wait() }()
	eventually(t, "the reader blocks on the stopped mount", func() bool {
		stack, _ := os.ReadFile("/proc/" + strconv.Itoa(reader.Process.Pid) + "/stack")
		return strings.Contains(string(stack), "fuse")
	})
	if !isMounted(k.dir) || !fusectl.Conn(k.minor).Exists() {
		t.Fatal("the stopped mount was detached or aborted before unmount --force")
	}

	out := runOK(t, "", storhfsBin, "unmount", "--force", k.dir)
	if !strings.Contains(out, "aborted FUSE connection") {
		t.Errorf("unmount --force said %q", out)
	}
	if ioUring {
		// Over io_uring (Linux 6.18) the kernel hands a request to the
		// serving thread as task work, which a stopped process never
		// runs: aborting ends the requests it holds only once it runs
		// again or dies (README, "--io-uring"). Killing it must do.
		proc.Signal(syscall.SIGKILL)
	}
	select {
	case err := <-readerDone:
		if err == nil {
			t.Error("ls of the aborted mount succeeded")
		}
	case <-time.After(exitBound):
		t.Fatalf("reader still blocked %v after unmount --force", exitBound)
	}
	if isMounted(k.dir) {
		t.Errorf("%s still mounted after unmount --force", k.dir)
	}
	if entries, err := os.ReadDir(k.dir); err != nil || len(entries) != 0 {
		t.Errorf("mount point after unmount --force: %v, %v; want the empty folder", entries, err)
	}
	proc.Signal(syscall.SIGCONT)
	if !k.exited(exitBound) {
		t.Errorf("mount process still running %v after its connection was aborted", exitBound)
	}
}
